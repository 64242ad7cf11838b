/* tabi/tabi.h: everything a plugin needs, in one include. */
#ifndef TABI_TABI_H
#define TABI_TABI_H

#include "version.h"
#include "status.h"
#include "dtype.h"
#include "tensor.h"
#include "value.h"
#include "device.h"
#include "op.h"
#include "host.h"
#include "plugin.h"
#include "philox.h"
#include "half.h"
#include "dlpack_versioned.h"

#endif /* TABI_TABI_H */
