// Flags and link line only: the C++ API is reached through CAudioProcessing.
