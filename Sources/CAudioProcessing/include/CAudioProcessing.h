#pragma once
// placeholder: replaced by the APM shim
int capm_placeholder(void);
