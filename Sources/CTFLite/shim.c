#include "CTFLite.h"
int CTFLite_placeholder(void) { return 0; }
