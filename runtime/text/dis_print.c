/* The formatters of the generated printer (text/dis_print.h) that are not inline: binary32 values, whose
 * shortest exact form needs the C library's conversions (snprintf and strtof, off the hot path: table floats
 * are printed by mdlc at generation time, only `{FIELD}` holes of fields printed `float` come here). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/dis_print.h"

int tsr_tc_float_text(uint32_t bits, char b[48])
{
    float f;
    memcpy(&f, &bits, 4);
    if (isnan(f) || isinf(f))
        return -1;
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(b, 48, "%.*g", prec, (double)f);
        float g = strtof(b, NULL);
        uint32_t gb;
        memcpy(&gb, &g, 4);
        if (gb == bits)
            break;
    }
    if (!strpbrk(b, ".e"))
        strcat(b, ".0");
    return (int)strlen(b);
}

char *tsr_tc_fmt_float(char *p, uint64_t v)
{
    char b[48];
    int n = tsr_tc_float_text((uint32_t)v, b);
    if (n < 0)
        return tsr_tc_fmt_hex(p, v);
    memcpy(p, b, (size_t)n);
    return p + n;
}
