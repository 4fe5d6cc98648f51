#include "CPocketSphinxShim.h"
int CPocketSphinxShim_placeholder(void) { return 0; }
