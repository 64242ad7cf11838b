#include "ag.h"
const ag_formula ag_formulas_grid[] = {{NULL, NULL, 0, 0}};
