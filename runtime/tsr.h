/* The Tessera runtime: one include for every runtime header (docs/internals.md).
 * Each header documents its own module; add new runtime headers to this list. */
#ifndef TSR_H
#define TSR_H

#include "arena.h"
#include "arith.h"
#include "bits.h"
#include "diag.h"
#include "fileout.h"
#include "hexio.h"
#include "intern.h"
#include "target.h"
#include "textcodec.h"

#endif
