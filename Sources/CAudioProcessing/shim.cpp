#include "CAudioProcessing.h"
int capm_placeholder(void) { return 0; }
