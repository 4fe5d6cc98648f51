#pragma once
int COpusControl_placeholder(void);
