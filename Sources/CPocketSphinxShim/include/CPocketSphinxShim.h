#pragma once
int CPocketSphinxShim_placeholder(void);
