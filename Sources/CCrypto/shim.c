#include "CCrypto.h"
int CCrypto_placeholder(void) { return 0; }
