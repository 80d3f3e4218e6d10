/* The targets this build of a program (tools, tests, fuzzers, benchmarks) knows: configure.py defines TSR_TARGETS as a list of
 * X(name) entries, one per targets/<name>/<name>.mdl, and each generated backend exports
 * `const struct tsr_target <name>_target` (runtime/target.h).  configure.py also defines TSR_DEFAULT_TARGET as the
 * name of the target the tools use when none is asked for (its --default-target; see configure.py for the default): a
 * fact of the registry, so that adding a target never changes what `tessera dis FILE` does.  And it defines
 * TSR_PLATFORMS as a list of P(name) entries, one per target with a platform of its own (a
 * targets/<name>/<name>_platform.c defining `const struct tsr_platform <name>_platform`, runtime/sim/platform.h). */
#ifndef TOOLS_REGISTRY_H
#define TOOLS_REGISTRY_H
#include <stddef.h>
#include <string.h>
#include "target.h"

struct tsr_platform;  /* runtime/sim/platform.h */

#ifndef TSR_TARGETS
#define TSR_TARGETS
#endif
#define X(t) extern const struct tsr_target t##_target;
TSR_TARGETS
#undef X

/* NULL-terminated list of every built target, in targets/ directory order. */
static const struct tsr_target *const tsr_all_targets[] = {
#define X(t) &t##_target,
	TSR_TARGETS
#undef X
	NULL
};

/* The default target (TSR_DEFAULT_TARGET), or NULL when the build has no targets. */
#define TSR_REGISTRY_PASTE2(t) t##_target
#define TSR_REGISTRY_PASTE(t) TSR_REGISTRY_PASTE2(t)
static inline const struct tsr_target *tsr_default_target(void)
{
#ifdef TSR_DEFAULT_TARGET
	return &TSR_REGISTRY_PASTE(TSR_DEFAULT_TARGET);
#else
	return NULL;
#endif
}

#ifndef TSR_PLATFORMS
#define TSR_PLATFORMS
#endif
#define P(t) extern const struct tsr_platform t##_platform;
TSR_PLATFORMS
#undef P

/* The platform of target t (runtime/sim/platform.h: what `tessera sim` and `tessera demo` run programs on), or NULL
 * when t has none (then `tessera sim` runs one processor through t->sim alone). */
static inline const struct tsr_platform *tsr_target_platform(const struct tsr_target *t)
{
#define P(n) if (t == &n##_target) return &n##_platform;
	TSR_PLATFORMS
#undef P
	(void)t;
	return NULL;
}

/* The target called `name`, or NULL. */
static inline const struct tsr_target *tsr_find_target(const char *name)
{
	for (size_t i = 0; tsr_all_targets[i]; i++)
		if (!strcmp(tsr_all_targets[i]->name, name))
			return tsr_all_targets[i];
	return NULL;
}
#endif
