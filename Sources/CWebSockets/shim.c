#include "CWebSockets.h"
int cws_placeholder(void) { return 0; }
