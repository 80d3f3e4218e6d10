/* X11 component values in the checker (docs/mdl.md "Component values"): where a description first has a vec4
 * value and first uses a cross-lane built-in, the rules of a description with vec4 values, and the place checks
 * of a write of a vec4 value or through a `mask`.
 *
 * A description with vec4 values runs one thread (`lanes 1`); the simulator and the evaluator run its four
 * components as their lanes (model.h mdl_sim_lanes).  So every other value must be one value for all four
 * (a scalar is splatted): no `vec` state (lanes 1: write u32), no cross-lane built-in (elem, lane, rotate,
 * rotate_quad, quad_bcast: they would see the components), no hook that returns a value (a peripheral gives one
 * value per lane, which would be one per component).
 */
#include <string.h>
#include "check.h"

void ck_note_vec4(struct ck *k, struct mdl_loc loc)
{
	k->m->vec4 = true;
	if (!k->vec4_used) {
		k->vec4_used = true;
		k->vec4_loc = loc;
	}
}

void ck_note_lanefn(struct ck *k, const char *name, struct mdl_loc loc)
{
	if (!k->lanefn_used) {
		k->lanefn_used = true;
		k->lanefn_loc = loc;
		k->lanefn_name = name;
	}
}

void ck_vec4_final(struct ck *k)
{
	struct mdl_model *m = k->m;
	if (!m->vec4)
		return;
	if (m->lanes != 1)
		mdl_error(k->p, k->vec4_loc, "vec4 values need 'lanes 1' (the simulator runs the four components as its "
		          "lanes), not lanes %d", m->lanes);
	for (int s = 0; s < m->nstates; s++)
		if (m->states[s].vec && !m->states[s].vec4)
			mdl_error(k->p, m->states[s].loc, "'%s' cannot be 'vec' in a description with vec4 values (one lane: "
			          "write u32)", m->states[s].name);
	if (k->lanefn_used)
		mdl_error(k->p, k->lanefn_loc, "'%s' looks across lanes, which a description with vec4 values does not have",
		          k->lanefn_name);
	for (int h = 0; h < m->nhooks; h++)
		if (m->hooks[h].returns_value)
			mdl_error(k->p, m->hooks[h].loc, "hook '%s' returns a value, which a description with vec4 values "
			          "cannot take yet (one value per component)", m->hooks[h].name);
}

int ck_vec4_place(struct ck *k, const struct mdl_expr *v, const struct mdl_expr *mask, bool place_vec4,
                  const char *kind, const char *name, struct mdl_loc loc)
{
	if (place_vec4)
		return 0;
	if (mask) {
		mdl_error(k->p, mask->loc, "'mask' writes components of a vec4, and %s '%s' is not vec4", kind, name);
		return -1;
	}
	if (v && v->type == MDL_T_VEC4) {
		mdl_error(k->p, loc, "cannot write a vec4 to %s '%s' (not vec4: take a component with comp(v, i))", kind,
		          name);
		return -1;
	}
	return 0;
}
