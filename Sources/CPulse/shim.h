#include <pulse/pulseaudio.h>
#include <pulse/simple.h>
#include <pulse/error.h>
