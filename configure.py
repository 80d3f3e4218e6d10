#!/usr/bin/env python3
"""Writes build.ninja for Tessera (modelled on ninja's own configure.py).

Every source directory is globbed, so a new file needs no edit here: the ninja file lists this
script and the globbed directories as inputs of its own regeneration edge, so ninja re-runs
configure.py when either changes.  Paths are relative to the repository root and ninja is run
from there (`ninja`, `ninja -f build-san.ninja`).  Python 3 standard library only.
"""
import argparse, glob, os, re, shlex, shutil, subprocess, sys, tempfile

# The files `mdlc -o DIR targets/<t>/<t>.mdl` writes, as suffixes of <t> (docs/internals.md).
MDLC_OUTPUTS = ('.h', '_tables.c', '_encode.c', '_decode.c', '_asm.c', '_disasm.c', '_sim.c', '_target.c',
                '_validate.c')
APT_PACKAGES = ('re2c', 'lemon', 'libxxhash-dev', 'libcriterion-dev', 'ninja-build', 'clang',
                'libclang-rt-14-dev', 'libfftw3-dev')
LEMPAR = '/usr/share/lemon/lempar.c'
BASE = '-std=c11 -Wall -Wextra -Werror -D_POSIX_C_SOURCE=200809L'
INCLUDES = '-Iruntime -Imdl -I$builddir/mdl'
SANITIZE = '-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all'
FUZZ_SECONDS, FUZZ_RUNS = 20, 2000000
# `ninja test-san` runs SAN_TOGETHER test binaries at a time (each with Criterion's --jobs 2), those of SAN_FIRST
# first: the longest under the sanitizers (README.md "Testing" has the measured times).
SAN_TOGETHER = 2
SAN_FIRST = ('test_utgard_pack', 'test_asm', 'test_eval', 'test_utgard_sim', 'test_disprint', 'test_dprint', 'test_pack',
             'test_robust', 'test_gpufft')
# The object variants of one build directory: $builddir/<variant>/ and the rule that compiles for it.  obj: --cc with
# cflags; fuzz/obj: clang, ASan + UBSan + libFuzzer's coverage (the libraries of the fuzzers and of the sanitizer
# tests); san/obj: clang, ASan + UBSan (what only the sanitizer tests link).
VARIANT_RULE = {'obj': 'cc', 'fuzz/obj': 'fuzz_cc', 'san/obj': 'san_cc'}
# lemon's template (lempar.c) leaves parameters and variables unused: relaxed for that file only.
LEMON_WARN = '-Wno-unused-parameter -Wno-unused-variable -Wno-unused-but-set-variable'


class Writer:
    """A minimal ninja file writer: variables, rules, build edges, defaults."""

    def __init__(self):
        self.lines = []

    @staticmethod
    def escape_path(p):
        return p.replace(' ', '$ ').replace(':', '$:')  # '$' stays: paths use $builddir

    def newline(self):
        self.lines.append('')

    def variable(self, key, value, indent=0):
        if isinstance(value, (list, tuple)):
            value = ' '.join(v for v in value if v)
        self.lines.append('  ' * indent + '%s = %s' % (key, value))

    def rule(self, name, command, **kw):
        self.lines.append('rule ' + name)
        self.variable('command', command, 1)
        for key in ('description', 'depfile', 'deps', 'generator', 'restat', 'pool'):
            if kw.get(key) is not None:
                self.variable(key, kw[key], 1)
        self.newline()

    def build(self, outputs, rule, inputs=(), implicit=(), order_only=(), variables=None):
        """Writes one edge; returns `outputs` so calls nest."""
        def paths(ps):
            return [self.escape_path(p) for p in ([ps] if isinstance(ps, str) else ps)]
        line = 'build %s: %s' % (' '.join(paths(outputs)), ' '.join([rule] + paths(inputs)))
        if implicit:
            line += ' | ' + ' '.join(paths(implicit))
        if order_only:
            line += ' || ' + ' '.join(paths(order_only))
        self.lines.append(line)
        for key, value in (variables or {}).items():
            self.variable(key, value, 1)
        return outputs

    def default(self, paths):
        self.lines.append('default ' + ' '.join(self.escape_path(p) for p in paths))

    def text(self):
        return '\n'.join(self.lines) + '\n'


def src(path):  # a path in the source tree, relative to the repository root
    return path


def built(path):  # a path in the build directory
    return '$builddir/' + path


def files(pattern):  # sorted, so the output is deterministic; a missing directory gives []
    return sorted(glob.glob(pattern))


def stem(path, prefix=''):
    base = os.path.splitext(os.path.basename(path))[0]
    return base[len(prefix):] if base.startswith(prefix) else base


def run(cmd, stdin=None, quiet=True):
    try:
        return subprocess.run(cmd, input=stdin, capture_output=quiet, text=True).returncode == 0
    except OSError:
        return False


def install_deps():
    prefix = ([] if os.geteuid() == 0 else ['sudo']) + ['env', 'DEBIAN_FRONTEND=noninteractive']
    for cmd in (['apt-get', 'update'], ['apt-get', 'install', '-y'] + list(APT_PACKAGES)):
        print('+ ' + ' '.join(prefix + cmd), flush=True)
        if not run(prefix + cmd, quiet=False):
            sys.exit('configure.py: error: `%s` failed' % ' '.join(prefix + cmd))


def compiles(cc, flags, code, link=False):
    """True if `cc` compiles (and links, if `link`) `code` with `flags`."""
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, 't.c'), 'w') as f:
            f.write(code)
        return run(cc + flags + ([] if link else ['-c']) + [f.name, '-o', os.path.join(tmp, 't.out')])


def check_tools(args, cc):
    """Exits non-zero naming each missing tool's Debian package and the command that installs it."""
    missing = []
    version = subprocess.run(['re2c', '--version'], capture_output=True, text=True).stdout \
        if shutil.which('re2c') else ''
    m = re.search(r'(\d+)\.(\d+)', version)
    if not m or (int(m.group(1)), int(m.group(2))) < (2, 0):
        missing.append(('re2c >= 2.0 (found: %s)' % (version.strip() or 'none'), 're2c'))
    if not shutil.which('lemon') or not os.path.exists(LEMPAR):
        missing.append(('lemon and ' + LEMPAR, 'lemon'))
    if not shutil.which('ninja'):
        missing.append(('ninja', 'ninja-build'))
    if not shutil.which(cc[0]):
        missing.append(('C compiler ' + cc[0], 'clang' if 'clang' in cc[0] else 'gcc'))
    else:
        for header, pkg in (('xxhash.h', 'libxxhash-dev'), ('criterion/criterion.h', 'libcriterion-dev'),
                            ('fftw3.h', 'libfftw3-dev')):
            if not run(cc + ['-E', '-x', 'c', '-', '-o', os.devnull], '#include <%s>\n' % header):
                missing.append(('header <%s>' % header, pkg))
        if args.sanitize and not compiles(cc, SANITIZE.split(), 'int main(void) { return 0; }\n', True):
            missing.append(('sanitizer runtimes for ' + cc[0],
                            'libclang-rt-14-dev' if 'clang' in cc[0] else 'libasan8 libubsan1'))
    for what, pkg in missing:
        print('configure.py: error: missing %s: install Debian package %s with\n'
              '    sudo apt-get install -y %s   (or run: python3 configure.py --install-deps)' % (what, pkg, pkg),
              file=sys.stderr)
    if missing:
        sys.exit(1)


def fftw_link(cc):
    """The link flag for FFTW in `tessera` (tools/gpufft.c): its static library when that links here, else the
    shared one.  Loading libfftw3.so.3 costs every tessera process, whatever its command, its 1,294 symbol
    relocations before main: 0.65 M instructions (callgrind), more than a one-word `tessera dis` does."""
    code = '#include <fftw3.h>\nint main(void) { fftw_free(fftw_malloc(8)); return 0; }\n'
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, 't.c')
        with open(src, 'w') as f:
            f.write(code)
        ok = run(cc + [src, '-l:libfftw3.a', '-lm', '-o', os.path.join(tmp, 't')])
    return '-l:libfftw3.a' if ok else '-lfftw3'


def find_fuzz_cc(cc):
    """clang (whatever --cc is) if it links a libFuzzer harness, else None: fuzzers are then skipped."""
    fcc = ['clang'] if shutil.which('clang') else (cc if 'clang' in cc[0] else None)
    harness = ('#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n'
               'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n')
    return fcc if fcc and compiles(fcc, ['-fsanitize=fuzzer,address,undefined'], harness, link=True) else None


def main():
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser(description='Write the ninja file that builds Tessera.')
    ap.add_argument('--cc', default='cc', help='C compiler, gcc or clang (default: cc)')
    ap.add_argument('--debug', action='store_true', help='-O0 -g instead of -O2 -g')
    ap.add_argument('--sanitize', action='store_true', help='build with ASan and UBSan')
    ap.add_argument('--builddir', default='build', help='build directory (default: build)')
    ap.add_argument('--out', default='build.ninja', help='ninja file to write (default: build.ninja)')
    ap.add_argument('--install-deps', action='store_true', help='apt-get install the build dependencies first')
    ap.add_argument('--default-target', default='qpu', metavar='NAME',
                    help="the target tools use without --target (default: qpu); a registry fact, so adding a "
                         "target never changes it")
    args = ap.parse_args()
    if args.install_deps:
        install_deps()
    cc = shlex.split(args.cc)
    check_tools(args, cc)
    fuzz_cc = find_fuzz_cc(cc)
    regen_args = [a for a in sys.argv[1:] if a != '--install-deps']

    n = Writer()
    n.lines.append('# Generated by configure.py %s; do not edit.' % ' '.join(regen_args))
    n.variable('builddir', args.builddir)
    n.variable('cc', args.cc)
    n.variable('cflags', [BASE, '-O0 -g' if args.debug else '-O2 -g', SANITIZE if args.sanitize else '', INCLUDES])
    n.variable('ldflags', SANITIZE if args.sanitize else '')
    n.variable('fuzz_cc', ' '.join(fuzz_cc or ['clang']))
    n.variable('fuzz_cflags', [BASE, '-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined',
                               '-fno-sanitize-recover=all', INCLUDES])
    # The sanitizer variant of the same build ($builddir/san/, `ninja test-san`): the fuzzers' flags without the
    # coverage instrumentation, for what only the tests link (tools, tests, mdlc, benchmarks, seedgen).
    n.variable('san_cflags', [BASE, '-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined',
                              '-fno-sanitize-recover=all', INCLUDES])
    n.variable('libs', '-lxxhash -lm')
    n.newline()
    for rule, cc_var in (('cc', '$cc $cflags'), ('fuzz_cc', '$fuzz_cc $fuzz_cflags'), ('san_cc', '$fuzz_cc $san_cflags')):
        n.rule(rule, cc_var + ' $incs $extra -MMD -MF $out.d -c $in -o $out', depfile='$out.d', deps='gcc',
               description='CC $out')
    n.rule('ar', 'rm -f $out && ar crs $out $in', description='AR $out')
    n.rule('link', '$cc $ldflags -o $out $in $libs', description='LINK $out')
    n.rule('fuzz_link', '$fuzz_cc -fsanitize=fuzzer,address,undefined -o $out $in $libs', description='LINK $out')
    # Libraries compiled with -fsanitize=fuzzer-no-link link without libFuzzer too: the ASan runtime defines the
    # coverage callbacks (weak, doing nothing).
    n.rule('san_link', '$fuzz_cc -fsanitize=address,undefined -o $out $in $libs', description='LINK $out')
    n.rule('re2c', 're2c -W --no-generation-date --no-version -o $out $in', description='RE2C $out')
    # lemon writes parse.c and parse.h into -d; it leaves an unchanged parse.h alone, hence restat.
    n.rule('lemon', 'lemon -q -T%s -d$builddir/mdl $in' % LEMPAR, restat=1, description='LEMON $in')
    n.rule('mdlc', '$builddir/mdlc --name $name -o $outdir $in', restat=1, description='MDLC $in')
    n.rule('run', '$cmd', pool='console', description='$desc')
    n.rule('configure', 'python3 configure.py ' + ' '.join(shlex.quote(a) for a in regen_args).replace('$', '$$'),
           generator=1, description='CONFIGURE $out')

    # Generators: re2c lexer and lemon parser (when their sources exist), mdlc per target.
    parse_h = [built('mdl/parse.h')] if os.path.exists('mdl/parse.y') else []
    mdl_srcs = [src(s) for s in files('mdl/*.c')]
    if os.path.exists('mdl/lexer.re'):
        mdl_srcs.append(n.build(built('mdl/lexer.c'), 're2c', src('mdl/lexer.re')))
    if parse_h:
        mdl_srcs.append(n.build([built('mdl/parse.c')] + parse_h, 'lemon', src('mdl/parse.y'))[0])
    subdirs = [t for t in sorted(os.listdir('targets')) if os.path.isdir('targets/' + t)] \
        if os.path.isdir('targets') else []
    targets = [t for t in subdirs if os.path.exists('targets/%s/%s.mdl' % (t, t))]
    if targets and not (files('gen/*.c') and mdl_srcs):
        print('configure.py: note: no mdlc sources yet (gen/*.c, mdl/), so no target is built', file=sys.stderr)
        targets = []
    # runtime/: the base at its root, one folder per job (text/, sim/, validate/, pack/; docs/internals.md).
    runtime_dirs = ['runtime'] + ['runtime/' + d for d in sorted(os.listdir('runtime'))
                                  if os.path.isdir('runtime/' + d)] if os.path.isdir('runtime') else []
    runtime_srcs = sum((files(d + '/*.c') for d in runtime_dirs), [])
    gen_srcs = {}
    for t in targets:
        outs = [built('gen/%s/%s%s' % (t, t, s)) for s in MDLC_OUTPUTS]
        mdl = src('targets/%s/%s.mdl' % (t, t))
        n.build(outs, 'mdlc', mdl, implicit=[built('mdlc')] + [f for f in files('targets/%s/*.mdl' % t) if f != mdl],
                variables={'outdir': built('gen/' + t), 'name': t})
        gen_srcs[t] = [o for o in outs if o.endswith('.c')] + files('targets/%s/*.c' % t)
    # tests/desc/<d>.mdl: descriptions that exist only for a test (no registry entry): generated like a target
    # into $builddir/gen/<d>/ and linked into tests/test_<d>.c alone.
    descs = [stem(f) for f in files('tests/desc/*.mdl')] if targets else []
    for d in descs:
        outs = [built('gen/%s/%s%s' % (d, d, s)) for s in MDLC_OUTPUTS]
        n.build(outs, 'mdlc', src('tests/desc/%s.mdl' % d), implicit=[built('mdlc')],
                variables={'outdir': built('gen/' + d), 'name': d})
        gen_srcs[d] = [o for o in outs if o.endswith('.c')]
    if targets and args.default_target not in targets:
        sys.exit("configure.py: error: --default-target '%s' is not a target (targets/<t>/<t>.mdl): %s"
                 % (args.default_target, ' '.join(targets)))
    gen_h = [built('gen/%s/%s.h' % (t, t)) for t in targets + descs]
    # Tools, tests, benchmarks and fuzzers see every target's headers; the first build generates
    # them (order-only) before compiling anything that may include them.
    all_incs, order = ' '.join('-I$builddir/gen/%s -Itargets/%s' % (t, t) for t in targets), parse_h + gen_h
    # The target registry of runtime/registry.h: -DTSR_TARGETS='X(qpu) X(...)' (directory order) and
    # -DTSR_DEFAULT_TARGET=NAME (--default-target: what the tools use without --target, whatever else is built).
    all_incs += " -Itools '-DTSR_TARGETS=%s'" % ' '.join('X(%s)' % t for t in targets)
    # ... and -DTSR_PLATFORMS='P(t) ...': the targets with a platform of their own, targets/<t>/<t>_platform.c
    # (`const struct tsr_platform <t>_platform`, runtime/sim/platform.h; found with tsr_target_platform()).
    all_incs += " '-DTSR_PLATFORMS=%s'" % ' '.join('P(%s)' % t for t in targets
                                                  if os.path.exists('targets/%s/%s_platform.c' % (t, t)))
    if targets:
        all_incs += ' -DTSR_DEFAULT_TARGET=' + args.default_target

    def compile_(source, variant, incs='', order=(), extra=''):
        rel = source[len('$builddir/'):] if source.startswith('$builddir/') else source
        obj = built('%s/%s.o' % (variant, os.path.splitext(rel)[0]))
        variables = {k: v for k, v in (('incs', incs), ('extra', extra)) if v}
        return n.build(obj, VARIANT_RULE.get(variant, 'cc'), source, order_only=list(order), variables=variables)

    def library(name, sources, variant, incs='', order=(), extra=None):
        objs = [compile_(s, variant, incs, order, (extra or {}).get(s, '')) for s in sources]
        prefix = variant[:-len('obj')]  # '' for obj, 'fuzz/' for fuzz/obj, 'san/' for san/obj
        return [n.build(built('%slib%s.a' % (prefix, name)), 'ar', objs)] if objs else []

    def libraries(variant):
        """Target libraries, then [libmdl.a, libtsr.a], compiled for `variant` (obj or fuzz/obj)."""
        tlibs = sum((library('tessera-' + t, gen_srcs[t], variant, '-I$builddir/gen/%s -Itargets/%s' % (t, t),
                             order) for t in targets), [])
        core = library('mdl', mdl_srcs, variant, order=parse_h, extra={built('mdl/parse.c'): LEMON_WARN})
        return tlibs, core + library('tsr', runtime_srcs, variant)

    def program(out, sources, libs, extra_libs='', variant='obj', rule='link', implicit=(), incs=''):
        objs = [compile_(s, variant, all_incs + incs, order) for s in sources]
        return n.build(out, rule, objs, implicit=libs + list(implicit),
                       variables={'libs': ' '.join(libs + [extra_libs, '$libs'])})

    target_libs, core_libs = libraries('obj')
    libs = target_libs + core_libs
    mdlc = [n.build(built('mdlc'), 'link', [compile_(s, 'obj', '', parse_h) for s in files('gen/*.c')],
                    implicit=core_libs, variables={'libs': ' '.join(core_libs + ['$libs'])})] \
        if files('gen/*.c') else []
    def drivers(variant, rule, libs, fftw):
        """tessera, the test binaries and the benchmarks of one variant, linked with `libs` (target libraries, then
        core): (tools, tests, benches); the variant's directory is $builddir/ for obj, else $builddir/san/."""
        d = '' if variant == 'obj' else variant[:-len('obj')]
        # tools/gpufft.c (`tessera gpu-fft`) checks GPU_FFT in the simulator against FFTW's transform.
        # tools/: tessera.c is the driver's main; every other file (the commands, the GPU_FFT host harness)
        # goes into libtools.a, which tests and benchmarks link too.
        toollib = library('tools', [f for f in files('tools/*.c') if f != 'tools/tessera.c'], variant, all_incs, order)
        tools = [program(built(d + 'tessera'), ['tools/tessera.c'], toollib + libs, fftw, variant, rule)] \
            if os.path.exists('tools/tessera.c') else []
        # tests/support_*.c: helpers shared by the test binaries, linked into each of them.
        support = library('testsupport', files('tests/support_*.c'), variant, all_incs, order)
        # Tests that run the driver (tests/support_run.c) run the tessera of their own build directory.
        desc_libs = {t: library('tessera-' + t, gen_srcs[t], variant, '-I$builddir/gen/' + t, order) for t in descs}
        tests = [program(built(d + 'tests/' + stem(s)), [s], desc_libs.get(stem(s, 'test_'), []) + support + toollib +
                         libs, '-lcriterion -lfftw3f -lfftw3', variant, rule, implicit=tools,
                         incs=(' -I$builddir/gen/' + stem(s, 'test_')) if stem(s, 'test_') in desc_libs else '')
                 for s in files('tests/test_*.c')]
        benches = [program(built(d + 'bench/' + stem(s)), [s], toollib + libs, '-lfftw3f -lfftw3', variant, rule)
                   for s in files('bench/bench_*.c')]
        return tools, tests, benches

    tools, tests, benches = drivers('obj', 'link', libs, fftw_link(cc))
    fuzzers, seeds = [], []
    if fuzz_cc and files('fuzz/fuzz_*.c'):
        fuzz_libs = libraries('fuzz/obj')
        flibs = sum(fuzz_libs, [])
        fuzzers = [program(built('fuzz/' + stem(s)), [s], flibs, '', 'fuzz/obj', 'fuzz_link')
                   for s in files('fuzz/fuzz_*.c')]
    if fuzzers and os.path.exists('fuzz/seedgen.c'):
        # The generated seeds (fuzz/README.md): fuzz/seedgen writes $builddir/fuzz/seeds/<name>/ from each
        # target's description, tests/neg/*.mdl and the target's part of the shared corpus (every file of it
        # an input).
        corpus = os.path.join(os.environ.get('TESSERA_SHARED') or '../shared', 'corpus')
        # a target's part: corpus/<t>/ and corpus/<t>-*/ (utgard-gp for utgard)
        parts = [d for d in (sorted(os.listdir(corpus)) if os.path.isdir(corpus) else [])
                 for t in targets if d == t or d.startswith(t + '-')]
        corpus_files = sorted(os.path.join(r, f) for d in parts for r, _, fs in os.walk(os.path.join(corpus, d))
                              for f in fs)
        n.rule('seedgen', '$seedgen -o $outdir' + (' -c ' + shlex.quote(corpus) if os.path.isdir(corpus) else ''),
               description='SEEDGEN $out')
        seed_inputs = [src('targets/%s/%s.mdl' % (t, t)) for t in targets] + files('tests/neg/*.mdl') + corpus_files
        seedgen = program(built('fuzz/seedgen'), ['fuzz/seedgen.c'], libs)
        seeds = [n.build(built('fuzz/seeds/index.txt'), 'seedgen', implicit=[seedgen] + seed_inputs,
                         variables={'seedgen': seedgen, 'outdir': built('fuzz/seeds')})]

    # The sanitizer tests (`ninja test-san`, CI's second pass): the test binaries again, with clang, ASan and UBSan,
    # linked with the fuzzers' libraries (fuzz/obj), so that every library source is compiled once with clang and
    # once with --cc.  What only the tests link (tools, tests, mdlc, benchmarks, seedgen) is compiled for
    # $builddir/san/ (san/obj), so every C file goes through clang -Werror.  mdlc and seedgen also run there, under
    # the sanitizers, on what the first build generated with them: their output must be byte-identical.
    san_tests, san_checks = [], []
    if fuzzers:
        ftlibs, fcore = fuzz_libs
        n.rule('gencheck', '$cmd && { diff -r $ref $outdir >$outdir.diff 2>&1 || { cat $outdir.diff; exit 1; }; } && touch $out',
               description='CHECK $out')
        san_mdlc = n.build(built('san/mdlc'), 'san_link', [compile_(s, 'san/obj', '', parse_h) for s in files('gen/*.c')],
                           implicit=fcore, variables={'libs': ' '.join(fcore + ['$libs'])})
        for t in targets + descs:
            mdl = src('targets/%s/%s.mdl' % (t, t)) if t in targets else src('tests/desc/%s.mdl' % t)
            outs = [built('gen/%s/%s%s' % (t, t, x)) for x in MDLC_OUTPUTS]
            san_checks.append(n.build(
                built('san/gen/%s.ok' % t), 'gencheck', mdl,
                implicit=[san_mdlc] + outs + [f for f in files('targets/%s/*.mdl' % t) if f != mdl],
                variables={'cmd': 'rm -rf {1} && {0} --name {2} -o {1} {3}'.format(san_mdlc, built('san/gen/' + t), t, mdl),
                           'ref': built('gen/' + t), 'outdir': built('san/gen/' + t)}))
        san_tools, san_tests, san_benches = drivers('san/obj', 'san_link', ftlibs + fcore, fftw_link(fuzz_cc))
        if seeds:
            san_seedgen = program(built('san/fuzz/seedgen'), ['fuzz/seedgen.c'], ftlibs + fcore, '', 'san/obj',
                                  'san_link')
            san_checks.append(n.build(
                built('san/fuzz/seeds.ok'), 'gencheck', implicit=[san_seedgen] + seeds + seed_inputs,
                variables={'cmd': '{0} -o {1}{2}'.format(san_seedgen, built('san/fuzz/seeds'), (' -c ' + shlex.quote(
                    corpus)) if os.path.isdir(corpus) else ''), 'ref': built('fuzz/seeds'),
                           'outdir': built('san/fuzz/seeds')}))
        san_checks += san_benches
    n.newline()

    # Entry points: commands run from the repository root with TESSERA_ROOT set to it.  A sanitizer
    # report fails a test binary even when Criterion passed the test (it ignores leak reports).
    # together > 1: that many binaries at a time (xargs -P), each into its log and exit status file, the longest
    # first (SAN_FIRST), then every log in list order, as one at a time prints them.
    def run_tests(ts, together=1):
        env = 'export TESSERA_ROOT="$$PWD" UBSAN_OPTIONS="$${UBSAN_OPTIONS:-print_stacktrace=1}"; rc=0'
        check = 'if grep -q "ERROR: [A-Za-z]*Sanitizer" {0}.log; then echo "FAILED (sanitizer report): {0}"; rc=1; fi'
        if together <= 1:
            return [env] + ['echo "== {0}"; {0} --jobs 2 >{0}.log 2>&1 || rc=1; cat {0}.log; '.format(t) +
                            check.format(t) for t in ts]
        first = [t for s in SAN_FIRST for t in ts if stem(t) == s]
        order = first + [t for t in ts if t not in first]
        return [env, 'printf "%s\\n" {0} | xargs -P {1} -I @ sh -c \'@ --jobs 2 >@.log 2>&1; echo $$? >@.status\''.format(
            ' '.join(order), together)] + [
            'echo "== {0}"; cat {0}.log; [ "$$(cat {0}.status 2>/dev/null)" = 0 ] || rc=1; '.format(t) + check.format(t)
            for t in ts]
    sh = run_tests(tests)
    # each fuzzer: TESSERA_FUZZ_SECONDS (default 20, 0 skips), from its seeds: the committed ones in
    # fuzz/corpus/<x>/ and the generated ones in $builddir/fuzz/seeds/<x>/ (when seedgen wrote that folder)
    fz = []
    for f in fuzzers:
        x = stem(f, 'fuzz_')
        d, committed = built('fuzz/run/' + x), ('fuzz/corpus/' + x) if os.path.isdir('fuzz/corpus/' + x) else ''
        fz.append('mkdir -p {d}/work {d}/crash; echo "== {f} ($$secs s)"; g={g}; [ -d $$g ] || g=; if {f} '
                  '-max_total_time=$$secs -runs={r} -artifact_prefix={d}/crash/ {d}/work {s} $$g >{d}/log 2>&1; then '
                  'tail -n 1 {d}/log; else tail -n 60 {d}/log; echo "FAILED (fuzzer): {f}, log: {d}/log"; rc=1; '
                  'fi'.format(d=d, f=f, r=FUZZ_RUNS, s=committed, g=built('fuzz/seeds/' + x)))
    if fz:
        sh.append('secs=$${TESSERA_FUZZ_SECONDS:-%d}; if [ "$$secs" = 0 ]; then echo "note: fuzzers skipped '
                  '(TESSERA_FUZZ_SECONDS=0)"; else %s; fi' % (FUZZ_SECONDS, '; '.join(fz)))
    elif files('fuzz/fuzz_*.c'):
        sh.append('echo "note: clang with libFuzzer not available (libclang-rt-14-dev): fuzzers skipped"')
    everything = libs + mdlc + tools + tests + benches
    bench = ['rc=0'] + ['echo "== {0}"; {0} || rc=1'.format(b) for b in benches]
    demo = (tools[0] + ' demo') if tools else 'echo "note: no tools/*.c yet, so no tessera to run the demo"'
    # `run` edges write no file, so they always run; `test`, `bench` and `demo` are phony aliases.
    san = '; '.join(run_tests(san_tests, SAN_TOGETHER) + ['exit $$rc']) if san_tests else \
        'echo "note: clang with libFuzzer not available (libclang-rt-14-dev): no sanitizer tests"; exit 1'
    for name, deps, cmd in (('test', tests + fuzzers + seeds, '; '.join(sh + ['exit $$rc'])),
                            ('test-san', san_tests + san_checks, san),
                            ('bench', benches, '; '.join(bench + ['exit $$rc'])), ('demo', everything, demo)):
        n.build(built('.run/' + name), 'run', implicit=deps, variables={'cmd': cmd, 'desc': name.upper()})
        n.build(name, 'phony', built('.run/' + name))
    n.build('fuzz', 'phony', fuzzers + seeds)
    n.build('all', 'phony', everything + fuzzers + seeds)
    # Absolute directory paths: `bench` and `fuzz` are phony targets too (moving the tree needs a re-run).
    dirs = runtime_dirs + ['mdl', 'gen', 'targets', 'tools', 'tests', 'tests/desc', 'fuzz', 'bench'] + \
        ['targets/' + t for t in subdirs]
    n.build(args.out, 'configure', implicit=['configure.py'] + [os.path.abspath(d) for d in dirs if os.path.isdir(d)])
    n.default(everything or ['all'])

    tmp = '%s.tmp.%d' % (args.out, os.getpid())
    with open(tmp, 'w') as f:
        f.write(n.text())
    os.replace(tmp, args.out)
    print('configure.py: wrote %s (cc=%s%s%s; fuzzers: %s; targets: %s%s)' % (
        args.out, args.cc, ', debug' if args.debug else '', ', sanitize' if args.sanitize else '',
        ' '.join(fuzz_cc) if fuzz_cc else 'off', ' '.join(targets) or 'none',
        ' (default %s)' % args.default_target if targets else ''))


if __name__ == '__main__':
    main()
