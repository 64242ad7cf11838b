#include "ag.h"
const ag_formula ag_formulas_linalg[] = {{NULL, NULL, 0, 0}};
