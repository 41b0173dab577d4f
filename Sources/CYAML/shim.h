#ifndef WALLETOPS_CYAML_SHIM_H
#define WALLETOPS_CYAML_SHIM_H
#include <yaml.h>
#endif
