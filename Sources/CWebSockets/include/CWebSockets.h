#pragma once
int cws_placeholder(void);
