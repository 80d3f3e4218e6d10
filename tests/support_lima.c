/* Test support: the Utgard GP corpus's program names (support_lima.h). */
#include "support_lima.h"

const char *const lima_names[] = {
	"glmark2_buffer-wireframe", "glmark2_bump-height", "glmark2_bump-normals-tangent", "glmark2_bump-normals",
	"glmark2_bump-poly", "glmark2_conditionals", "glmark2_depth", "glmark2_desktop", "glmark2_effect-2d",
	"glmark2_function", "glmark2_gradient", "glmark2_ideas-lamp-lit", "glmark2_ideas-lamp-unlit",
	"glmark2_ideas-logo-flat", "glmark2_ideas-logo-shadow", "glmark2_ideas-logo", "glmark2_ideas-paper",
	"glmark2_ideas-table", "glmark2_ideas-text", "glmark2_ideas-under-table", "glmark2_jellyfish",
	"glmark2_light-advanced", "glmark2_light-basic-texgen", "glmark2_light-basic", "glmark2_light-phong",
	"glmark2_light-refract", "glmark2_loop", "glmark2_pulsar-light", "glmark2_pulsar", "glmark2_shadow",
	"glmark2_text-renderer", "kmscube_cube_smooth", "kmscube_cube_tex", "kmscube_cube_video",
	"kmscube_cube_video_blit", "kmscube_shadertoy", "kmscube_texturator", "limadriver_premali_test"};
const size_t lima_nnames = sizeof lima_names / sizeof *lima_names;
