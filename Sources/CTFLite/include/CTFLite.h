#pragma once
int CTFLite_placeholder(void);
