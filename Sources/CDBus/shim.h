#include <dbus/dbus.h>
