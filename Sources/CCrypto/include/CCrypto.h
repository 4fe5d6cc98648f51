#pragma once
int CCrypto_placeholder(void);
