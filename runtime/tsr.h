/* The Tessera runtime: one include for every public runtime header (docs/internals.md): the base at
 * runtime/, then each job's public header in its folder (text/, sim/, validate/, pack/).  Each header
 * documents its own module; add new public runtime headers to this list. */
#ifndef TSR_H
#define TSR_H

#include "arena.h"
#include "arith.h"
#include "bits.h"
#include "diag.h"
#include "fileout.h"
#include "hexio.h"
#include "progmeta.h"
#include "intern.h"
#include "target.h"
#include "tls.h"
#include "pack/pack.h"
#include "sim/sim.h"
#include "text/dis_print.h"
#include "text/textcodec.h"
#include "validate/validate.h"

#endif
