#include "COpusControl.h"
int COpusControl_placeholder(void) { return 0; }
