// Planted violation for the independence check's own test: a reference file including serialize/.
#include "serialize/codec.h"
