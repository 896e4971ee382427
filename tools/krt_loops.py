#!/usr/bin/env python3
"""krt_loops.py: the work-item loops of a barrier kernel, for `krt-cc --host` (docs/design.md, "Barriers on the
host device").

    krt_loops.py UNIT.i OUT.c NAMES

UNIT.i is krt-cc's preprocessed translation unit (-DKRT__SIGNATURES: every __kernel marked). For each kernel
whose body calls barrier(), this writes to OUT.c a function krt__loops_K with the kernel's parameters and the
group: the body split at each barrier into regions, each region a loop over the group's work-items (loop
fission, as PoCL and MCUDA do it). A private variable that lives across a barrier becomes an array with one
element per work-item, or, when it is a scalar computed from work-item ids and parameters only and never
assigned again, is computed again where it is used. A barrier inside an if, for, while or do is legal OpenCL C
only when every work-item of the group takes the same path, so the condition is evaluated once, as work-item 0
of the group sees it, and the statement itself runs at the group's level, its barrier-free parts as regions.
NAMES gets the kernels done, one per line; krt-cc generates their group runners to call krt__loops_K.

The unit is read by libclang (clang.cindex, the Debian package python3-clang-15): its AST gives the kernels,
their statements, which declaration each identifier names, which calls are barrier() and which expressions
write a variable; the output is the unit's own tokens, rewritten where a variable became an array or is computed
again, with #line markers so that gdb and sanitizers name the .cl's lines. Without libclang no kernel is
transformed (all keep their fibers) and a note names the package.

A kernel this cannot transform (a return or break before a barrier, goto, switch around a barrier, a barrier
in a helper function, a construct the AST shows that the transform does not know, ...) keeps its stack per
work-item (fibers), which is correct but slower: a note on stderr names the kernel, its line and the reason.
"""
import bisect
import glob
import os
import re
import sys

SCALAR = {'char', 'short', 'int', 'long', 'float', 'double', 'signed', 'unsigned', '_Bool', 'size_t',
          'ptrdiff_t', 'uint', 'uchar', 'ushort', 'ulong', 'int8_t', 'int16_t', 'int32_t', 'int64_t', 'uint8_t',
          'uint16_t', 'uint32_t', 'uint64_t', 'intptr_t', 'uintptr_t', 'bool', 'const'}
ASSIGN = {'=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>=', '++', '--'}
PTR_QUALS = {'const', 'volatile', 'restrict', '__restrict', '__restrict__', '_Atomic'}
# The work-item functions a recomputed variable may call, and their loops versions (krt_kernel_host.h), which
# read the loop's own copy of the work-item state rather than the thread-local pointer.
ITEM_FNS = {'get_global_id', 'get_local_id', 'get_group_id', 'get_local_size', 'get_global_size',
            'get_num_groups', 'get_work_dim', 'get_global_offset', 'get_enqueued_local_size',
            'get_global_linear_id', 'get_local_linear_id'}
PACKAGE = 'python3-clang-15'
KRT_HEADER = re.compile(r'(^|/)krt_(kernel|kernel_host|host_abi)\.h$')


class Cannot(Exception):
    """The kernel keeps its fibers; the message says why, in a kernel author's words."""

    def __init__(self, tok, why):
        super().__init__(why)
        self.tok = tok


class Tok:
    """A token of the unit: its text, kind (id, num, str, op), presumed file and line, and from the AST the local
    variable it names (var), whether it names a work-item function (item_fn), whether it is a callee (call) and
    whether it is the operator of an assignment or increment (effect)."""
    __slots__ = ('s', 'kind', 'file', 'line', 'off', 'var', 'param', 'item_fn', 'call', 'effect', 'deref')

    def __init__(self, s, kind, file, line, off=-1):
        self.s, self.kind, self.file, self.line, self.off = s, kind, file, line, off
        self.var, self.param, self.item_fn, self.call, self.effect = None, False, False, False, False
        self.deref = False


class Var:
    count = 0

    def __init__(self, name, spec, decl, init, static, tok):
        Var.count += 1
        self.id, self.name, self.spec, self.decl, self.init = Var.count, name, spec, decl, init
        self.static, self.tok = static, tok
        self.regions = set()
        self.written = False     # assigned, incremented or its address taken after its declaration (the AST)
        self.addressed = False   # &name somewhere: a pointer may reach it from another region
        self.mode = 'plain'      # plain | array (one per work-item) | remat (computed again where used)

    def cname(self):
        return 'krt__v%d_%s' % (self.id, self.name)


class Node:
    def __init__(self, kind, tok, lo=0, hi=0, **kw):
        self.kind, self.tok, self.lo, self.hi = kind, tok, lo, hi
        self.__dict__.update(kw)


# ---- libclang ----------------------------------------------------------------------------------------------

def load_clang():
    """clang.cindex with its library loaded, or (None, why). Debian installs the module for the system's Python
    (/usr/lib/python3/dist-packages): another python3 (a virtual environment, pyenv) finds it there too."""
    try:
        import clang.cindex as ci
    except ImportError:
        for d in ('/usr/lib/python3/dist-packages', '/usr/local/lib/python3/dist-packages'):
            if os.path.isfile(os.path.join(d, 'clang', 'cindex.py')) and d not in sys.path:
                sys.path.append(d)
        try:
            import clang.cindex as ci
        except ImportError:
            return None, 'the Python module clang.cindex is missing'
    try:
        ci.Index.create()
        return ci, None
    except Exception as e:   # the module's default library name (libclang-15.so, from libclang-15-dev) absent
        why = str(e).split('\n')[0]
    for lib in sorted(glob.glob('/usr/lib/llvm-15/lib/libclang-15.so*')) + \
            sorted(glob.glob('/usr/lib/*/libclang-15.so*')):
        try:
            ci.Config.set_library_file(lib)
            ci.Index.create()
            return ci, None
        except Exception:
            continue
    return None, 'libclang-15 cannot be loaded (%s)' % why


class Unit:
    """The preprocessed unit: its bytes, the presumed file and line of each of its lines (the # markers), the
    directive lines (markers, pragmas) and libclang's translation unit."""

    def __init__(self, path):
        self.path = path
        self.data = open(path, 'rb').read()
        self.line_off = [0, 0]      # the byte offset of each line, from 1
        self.presumed = [None]      # (file, line) of each line, from 1
        self.directive = set()
        self.pragma = {}            # line -> its text, for #pragma lines
        file, line = '?', 1
        off = 0
        for i, raw in enumerate(self.data.split(b'\n'), 1):
            text = raw.decode('utf-8', 'replace')
            if i > 1:
                self.line_off.append(off)
            off += len(raw) + 1
            self.presumed.append((file, line))
            s = text.lstrip()
            if s.startswith('#'):
                self.directive.add(i)
                m = re.match(r'#\s*(?:line\s+)?(\d+)\s+"((?:\\.|[^"])*)"', s)
                if m:
                    file, line = m.group(2), int(m.group(1))
                    continue
                if re.match(r'#\s*pragma\b', s):
                    self.pragma[i] = s.rstrip()
            line += 1

    def where(self, line):
        return self.presumed[line] if 0 < line < len(self.presumed) else ('?', 0)

    def user_text_has_barrier(self):
        """Whether a barrier can be in the unit's own code: `barrier` outside krt's headers and the system's
        (checked before libclang is loaded, so that a unit without one never needs it)."""
        lines = self.data.split(b'\n')
        for i, raw in enumerate(lines, 1):
            if b'barrier' not in raw or i in self.directive:
                continue
            f = self.where(i)[0]
            if f.startswith('/usr/') or KRT_HEADER.search(f):
                continue
            if re.search(rb'\bbarrier\b', raw):
                self.barrier_file = f
                return True
        return False

    def parse(self, ci):
        self.ci = ci
        args = ['-x', 'c', '-std=gnu11', '-ferror-limit=0', '-w',
                '-Dkrt__kernel_marker__=__attribute__((annotate("krt__kernel")))']
        self.tu = ci.Index.create().parse(self.path, args=args)
        self.errors = [(d.location.offset, d.location.line, d.spelling) for d in self.tu.diagnostics
                       if d.severity >= ci.Diagnostic.Error and d.location.file is not None
                       and os.path.samefile(d.location.file.name, self.path)]

    def tokens(self, cursor):
        """The tokens of a cursor's extent, directive lines left out."""
        ci = self.ci
        out = []
        kinds = {ci.TokenKind.IDENTIFIER: 'id', ci.TokenKind.KEYWORD: 'id', ci.TokenKind.PUNCTUATION: 'op'}
        # The range from the file's offsets: an extent that starts in a macro's expansion (the kernel marker)
        # gives no tokens.
        f = self.tu.get_file(self.path)
        lo, hi = ext(cursor)
        rng = ci.SourceRange.from_locations(ci.SourceLocation.from_offset(self.tu, f, lo),
                                            ci.SourceLocation.from_offset(self.tu, f, hi))
        for t in self.tu.get_tokens(extent=rng):
            k = t.kind
            if k == ci.TokenKind.COMMENT:
                continue
            loc = t.location
            if loc.line in self.directive:
                continue
            s = t.spelling
            kind = kinds.get(k)
            if kind is None:
                kind = 'str' if re.match(r'(u8|[LuU])?["\']', s) else 'num'
            f, line = self.where(loc.line)
            out.append(Tok(s, kind, f, line, loc.offset))
        return out


def ext(c):
    return c.extent.start.offset, c.extent.end.offset


def kids(c):
    return list(c.get_children())


# ---- One kernel, from the AST ----------------------------------------------------------------------------------

class Reader:
    """A kernel's body as statements (Node), built from the AST. Expressions stay token lists, each identifier
    resolved from the AST: the kernel's local variable it names (Tok.var), a parameter (Tok.param), a
    work-item function (Tok.item_fn); the operators of assignments and increments are marked (Tok.effect)."""

    def __init__(self, unit, fn):
        ci = unit.ci
        self.u, self.K = unit, ci.CursorKind
        self.toks = unit.tokens(fn)
        if not self.toks:
            raise Cannot(None, 'cannot read the kernel')
        self.offs = [t.off for t in self.toks]
        self.byoff = {t.off: t for t in self.toks}
        self.vars = {}              # the declaration's offset -> Var
        self.lo, self.hi = ext(fn)
        self.pragmas_used = set()
        for off, line, msg in unit.errors:
            if self.lo <= off < self.hi:
                raise Cannot(self.at(off), 'libclang cannot read it (%s)' % msg)

    # -- tokens

    def idx(self, off):
        return bisect.bisect_left(self.offs, off)

    def at(self, off):
        i = min(self.idx(off), len(self.toks) - 1)
        return self.toks[i]

    def span(self, lo, hi):
        return self.toks[self.idx(lo):self.idx(hi)]

    def parens(self, i):
        """The first ( at or after token i and its matching ): their indices."""
        while i < len(self.toks) and self.toks[i].s != '(':
            i += 1
        depth = 0
        for j in range(i, len(self.toks)):
            s = self.toks[j].s
            depth += s == '('
            depth -= s == ')'
            if depth == 0:
                return i, j
        raise Cannot(self.toks[-1], 'cannot read the kernel (unbalanced parentheses)')

    def op_token(self, c):
        """The operator of a unary, binary or compound assignment operator."""
        ch = kids(c)
        if not ch:
            return None
        lo, hi = ext(c)
        if self.K.UNARY_OPERATOR == c.kind:
            if ext(ch[0])[0] == lo:       # postfix: the operator is the last token
                i = self.idx(hi) - 1
                return self.toks[i] if i >= 0 else None
            return self.at(lo)
        i = self.idx(ext(ch[0])[1])
        return self.toks[i] if i < len(self.toks) else None

    # -- what the expressions do

    def analyse(self, fn):
        """One walk of the kernel's AST: references to variables and parameters with what they do to them,
        barrier() calls, calls of other functions, and the effects of operators."""
        K = self.K
        self.refs, self.barriers, self.fn_refs = [], [], []
        self.barrier_refs = 0
        stack = []
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))

        def walk(c, idx):
            k = c.kind
            if k == K.DECL_REF_EXPR:
                r = c.referenced
                if r is not None:
                    if r.kind in (K.VAR_DECL, K.PARM_DECL):
                        self.refs.append((c.location.offset, r.location.offset, r.kind == K.PARM_DECL,
                                          c.spelling, self.context(stack, idx)))
                    elif r.kind == K.FUNCTION_DECL:
                        self.fn_refs.append((r.spelling, c.location.offset))
                        if r.spelling == 'barrier':
                            self.barrier_refs += 1
                        t = self.byoff.get(c.location.offset)
                        if t is not None and t.s == r.spelling and r.spelling in ITEM_FNS:
                            t.item_fn = True
            elif k == K.CALL_EXPR:
                r = c.referenced
                if r is not None and r.kind == K.FUNCTION_DECL:
                    lo = ext(c)[0]
                    if r.spelling == 'barrier':
                        self.barriers.append(lo)
                    t = self.byoff.get(lo)
                    if t is not None and t.s == r.spelling:
                        t.call = True
            elif k in (K.BINARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR, K.UNARY_OPERATOR):
                op = self.op_token(c)
                if op is not None and (k == K.COMPOUND_ASSIGNMENT_OPERATOR or op.s in ('=', '++', '--')):
                    op.effect = True
                if op is not None and k == K.UNARY_OPERATOR and op.s == '*':
                    op.deref = True
            stack.append((c, idx))
            for i, ch in enumerate(c.get_children()):
                walk(ch, i)
            stack.pop()

        walk(fn, 0)
        self.barriers.sort()
        if self.barrier_refs != len(self.barriers):
            off = next(o for n, o in self.fn_refs if n == 'barrier')
            raise Cannot(self.at(off), 'barrier used other than in a call')

    def context(self, stack, idx):
        """What an expression does to the variable a reference names: read, write (assigned, incremented),
        address (&), or other. A member or element of the variable itself (s.x, v[0] of a vector) counts as the
        variable; one reached through a pointer (p->x, p[i]) is a read of the pointer."""
        K = self.K
        i, child = len(stack) - 1, idx
        while i >= 0:
            p, pidx = stack[i]
            if p.kind == K.PAREN_EXPR or (p.kind in (K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR) and child == 0):
                child, i = pidx, i - 1
                continue
            break
        if i < 0:
            return 'other'
        p = stack[i][0]
        if p.kind == K.UNEXPOSED_EXPR:        # an implicit conversion: the value is read
            return 'read'
        if p.kind == K.COMPOUND_ASSIGNMENT_OPERATOR and child == 0:
            return 'write'
        if p.kind in (K.BINARY_OPERATOR, K.UNARY_OPERATOR):
            op = self.op_token(p)
            s = op.s if op is not None else ''
            if p.kind == K.BINARY_OPERATOR and child == 0 and s == '=':
                return 'write'
            if p.kind == K.UNARY_OPERATOR and s in ('++', '--'):
                return 'write'
            if p.kind == K.UNARY_OPERATOR and s == '&':
                return 'address'
        return 'other'

    def resolve(self):
        """The tokens of the references get their variables; the variables what is done to them."""
        for off, doff, is_param, name, ctx in self.refs:
            t = self.byoff.get(off)
            if t is None or t.s != name:
                continue
            if is_param:
                t.param = True
                if ctx == 'write':
                    raise Cannot(t, 'the kernel assigns to its parameter ' + name)
                if ctx == 'address':
                    raise Cannot(t, 'the kernel takes the address of its parameter ' + name)
                continue
            v = self.vars.get(doff)
            if v is None:
                continue      # a global, or a variable of a statement expression: left as written
            t.var = v
            if ctx != 'read':
                v.written = True
            if ctx == 'address':
                v.addressed = True

    # -- statements

    def node(self, kind, lo, hi, **kw):
        n = Node(kind, self.at(lo), lo, hi, **kw)
        a = bisect.bisect_left(self.barriers, lo)
        n.bars = bisect.bisect_left(self.barriers, hi) - a
        return n

    def pragmas(self, lo, hi):
        out = []
        u = self.u
        for line in sorted(u.pragma):
            off = u.line_off[line]
            if lo <= off < hi and line not in self.pragmas_used:
                self.pragmas_used.add(line)
                f, pl = u.where(line)
                out.append(Node('pragma', Tok('#', 'op', f, pl, off), off, off, text=u.pragma[line], bars=0))
        return out

    def check_pragmas(self, lo, hi):
        u = self.u
        for line in sorted(u.pragma):
            if lo <= u.line_off[line] < hi and line not in self.pragmas_used:
                f, pl = u.where(line)
                raise Cannot(Tok('#', 'op', f, pl), 'a #pragma where the transform cannot keep it')

    def is_pragma_stmt(self, c):
        """An attributed statement that a #pragma (unroll) made: the pragma's line starts it."""
        return c.kind == self.K.UNEXPOSED_STMT and c.extent.start.line in self.u.pragma

    def stmts_of(self, c):
        if self.is_pragma_stmt(c):
            ch = kids(c)
            if not ch:
                raise Cannot(self.at(ext(c)[0]), 'a #pragma where the transform cannot keep it')
            return self.pragmas(ext(c)[0], ext(ch[-1])[0]) + self.stmts_of(ch[-1])
        return [self.stmt(c)]

    def block(self, c):
        lo, hi = ext(c)
        body, prev = [], lo
        for ch in kids(c):
            clo, chi = ext(ch)
            body += self.pragmas(prev, clo)
            body += self.stmts_of(ch)
            prev = max(prev, chi)
        body += self.pragmas(prev, hi)
        return self.node('block', lo, hi, body=body)

    def no_barrier(self, toks):
        for t in toks:
            if t.call and t.s == 'barrier':
                raise Cannot(t, 'a barrier inside an expression (only a statement `barrier(...);` splits the kernel)')
        return toks

    def stmt(self, c):
        K = self.K
        k = c.kind
        lo, hi = ext(c)
        t = self.at(lo)
        if k == K.COMPOUND_STMT:
            return self.block(c)
        if k == K.DECL_STMT:
            return self.decl(c)
        if k == K.IF_STMT:
            ch = kids(c)
            o, e = self.parens(self.idx(lo))
            then = self.stmt(ch[1])
            other = self.stmt(ch[2]) if len(ch) > 2 else None
            return self.node('if', lo, hi, cond=self.no_barrier(self.toks[o + 1:e]), then=then, other=other)
        if k in (K.WHILE_STMT, K.SWITCH_STMT):
            ch = kids(c)
            o, e = self.parens(self.idx(lo))
            return self.node('while' if k == K.WHILE_STMT else 'switch', lo, hi,
                             cond=self.no_barrier(self.toks[o + 1:e]), body=self.stmt(ch[-1]))
        if k == K.DO_STMT:
            ch = kids(c)
            body = self.stmt(ch[0])
            i = self.idx(ext(ch[0])[1])
            while i < len(self.toks) and self.toks[i].s != 'while':
                i += 1
            o, e = self.parens(i)
            return self.node('do', lo, hi, cond=self.no_barrier(self.toks[o + 1:e]), body=body)
        if k == K.FOR_STMT:
            return self.for_stmt(c)
        if k in (K.CASE_STMT, K.DEFAULT_STMT):
            ch = kids(c)
            sub = ch[-1]
            i = self.idx(ext(sub)[0])
            j = i - 1
            while j > self.idx(lo) and self.toks[j].s != ':':
                j -= 1
            if self.toks[j].s != ':':
                raise Cannot(t, 'cannot read the case label here')
            return self.node('case', lo, hi, toks=self.no_barrier(self.toks[self.idx(lo):j]),
                             body=self.stmt(sub))
        if k == K.RETURN_STMT:
            return self.node('return', lo, hi, toks=self.no_barrier(self.span(lo, hi)[1:]))
        if k == K.BREAK_STMT:
            return self.node('break', lo, hi)
        if k == K.CONTINUE_STMT:
            return self.node('continue', lo, hi)
        if k == K.NULL_STMT:
            return self.node('expr', lo, hi, toks=[])
        if k in (K.GOTO_STMT, K.INDIRECT_GOTO_STMT):
            raise Cannot(t, 'goto')
        if k == K.LABEL_STMT:
            raise Cannot(t, 'the label ' + c.spelling)
        if self.is_pragma_stmt(c):
            return self.node('block', lo, hi, body=self.stmts_of(c))
        if k == K.ASM_STMT:      # its operands' variables are renamed like any; it counts as writing them
            return self.node('expr', lo, hi, toks=self.span(lo, hi))
        if k.is_expression():
            n = self.node('expr', lo, hi, toks=self.span(lo, hi))
            n.is_bar = n.bars == 1 and self.is_barrier_call(c)
            return n
        raise Cannot(t, 'a statement the transform does not know (%s)' % k.name.lower().replace('_', ' '))

    def is_barrier_call(self, c):
        """barrier(...) or (void)barrier(...), the whole expression."""
        K = self.K
        while c.kind in (K.PAREN_EXPR, K.CSTYLE_CAST_EXPR, K.UNEXPOSED_EXPR):
            if c.kind == K.CSTYLE_CAST_EXPR and c.type.kind != c.type.kind.VOID:
                return False
            ch = kids(c)
            if not ch:
                return False
            c = ch[-1]
        r = c.referenced if c.kind == K.CALL_EXPR else None
        return r is not None and r.kind == K.FUNCTION_DECL and r.spelling == 'barrier'

    def for_stmt(self, c):
        lo, hi = ext(c)
        o, e = self.parens(self.idx(lo))
        semis, depth = [], 0
        for j in range(o + 1, e):
            s = self.toks[j].s
            if s in '([{':
                depth += 1
            elif s in ')]}':
                depth -= 1
            elif s == ';' and depth == 0 and len(semis) < 2:
                semis.append(j)
        if len(semis) != 2:
            raise Cannot(self.at(lo), 'cannot read the for statement here')
        s1, s2 = self.toks[semis[0]].off, self.toks[semis[1]].off
        init, body = None, None
        for ch in kids(c):
            clo = ext(ch)[0]
            if clo < s1:
                init = self.decl(ch) if ch.kind == self.K.DECL_STMT else \
                    self.node('expr', *ext(ch), toks=self.no_barrier(self.toks[o + 1:semis[0]]))
            elif clo > self.toks[e].off:
                body = self.stmts_of(ch)
                body = body[0] if len(body) == 1 else self.node('block', *ext(ch), body=body)
        if body is None:
            raise Cannot(self.at(lo), 'cannot read the for statement here')
        return self.node('for', lo, hi, init=init, cond=self.no_barrier(self.toks[semis[0] + 1:semis[1]]),
                         incr=self.no_barrier(self.toks[semis[1] + 1:e]), body=body)

    def decl(self, c):
        K = self.K
        lo, hi = ext(c)
        ch = kids(c)
        for d in ch:
            if d.kind != K.VAR_DECL:
                what = {K.TYPEDEF_DECL: 'a typedef inside the kernel',
                        K.FUNCTION_DECL: 'a function declared inside the kernel'}.get(
                            d.kind, 'a struct, union or enum defined inside the kernel')
                raise Cannot(self.at(ext(d)[0]), what)
        ts = self.span(lo, hi)
        if ts and ts[-1].s == ';':
            ts = ts[:-1]
        parts, cur, depth = [], [], 0
        for x in ts:
            if x.s in '([{':
                depth += 1
            elif x.s in ')]}':
                depth -= 1
            if x.s == ',' and depth == 0:
                parts.append(cur)
                cur = []
            else:
                cur.append(x)
        parts.append(cur)
        if len(parts) != len(ch):
            raise Cannot(self.at(lo), 'cannot read the declaration here')
        spec, vs = None, []
        for p, d in zip(parts, ch):
            noff = d.location.offset
            ni = next((i for i, x in enumerate(p) if x.off == noff), None)
            if ni is None:
                raise Cannot(self.at(lo), 'cannot read the declaration here')
            eq, depth = None, 0
            for i, x in enumerate(p):
                if x.s in '([{':
                    depth += 1
                elif x.s in ')]}':
                    depth -= 1
                elif x.s == '=' and depth == 0 and i > ni:
                    eq = i
                    break
            dpart = p if eq is None else p[:eq]
            init = None if eq is None else self.no_barrier(p[eq + 1:])
            if spec is None:
                j = ni
                while j > 0 and (p[j - 1].s in ('*', '(') or
                                 (p[j - 1].s in PTR_QUALS and any(x.s == '*' for x in p[:j - 1]))):
                    j -= 1
                spec, dpart = p[:j], dpart[j:]
            static = d.storage_class in (d.storage_class.STATIC, d.storage_class.EXTERN) or \
                any(x.s in ('static', 'extern', '_Thread_local', '__thread') for x in spec)
            v = Var(d.spelling, spec, dpart, init, static, p[ni])
            self.vars[noff] = v
            vs.append(v)
        return self.node('decl', lo, hi, spec=spec, vars=vs, static=vs[0].static)


# ---- Where barriers are ------------------------------------------------------------------------------------

SEP = Tok(';', 'op', '', 0)


def tokens_of(n):
    """Every token of a statement, nested statements included, its parts apart (a ; between them)."""
    k = n.kind
    if k in ('expr', 'return'):
        return list(n.toks) + [SEP]
    if k == 'case':
        return list(n.toks) + [SEP] + tokens_of(n.body)
    if k == 'decl':
        out = list(n.spec) + [SEP]
        for v in n.vars:
            out += v.decl + [SEP] + (v.init or []) + [SEP]
        return out
    if k == 'block':
        return [t for s in n.body for t in tokens_of(s)]
    if k == 'if':
        return n.cond + [SEP] + tokens_of(n.then) + (tokens_of(n.other) if n.other else [])
    if k in ('while', 'do', 'switch'):
        return n.cond + [SEP] + tokens_of(n.body)
    if k == 'for':
        return (tokens_of(n.init) if n.init else []) + n.cond + [SEP] + n.incr + [SEP] + tokens_of(n.body)
    return []


def is_barrier_stmt(n):
    """barrier(...); or (void)barrier(...); alone (the AST says so)."""
    return getattr(n, 'is_bar', False)


def has_barrier(n):
    return getattr(n, 'bars', 0) > 0


# ---- The plan: regions and group-level statements --------------------------------------------------------------

class Planner:
    def __init__(self):
        self.early = False
        self.regions = 0
        self.conds = 0

    def new_region(self):
        self.regions += 1
        return self.regions

    def note(self, toks, region):
        for t in toks:
            if t.var is not None:
                t.var.regions.add(region)

    def note_stmt(self, n, region):
        for v in all_vars(n, []):
            v.regions.add(region)
        self.note(tokens_of(n), region)

    def check_region_stmt(self, n, final, loops=0, switches=0):
        """A statement inside a region: no jump out of the region's work-item loop."""
        k = n.kind
        if k == 'return':
            if not final:
                self.early = True   # the work-item leaves the later regions out (krt__gone)
        elif k == 'break' and loops == 0 and switches == 0:
            raise Cannot(n.tok, 'a break out of a loop that has a barrier')
        elif k == 'continue' and loops == 0:
            raise Cannot(n.tok, 'a continue in a loop that has a barrier')
        in_loop = loops + (1 if k in ('for', 'while', 'do') else 0)
        in_switch = switches + (1 if k == 'switch' else 0)
        for sub in children(n):
            self.check_region_stmt(sub, final, in_loop, in_switch)

    def plan_list(self, stmts, top):
        """A statement list: [('region', id, stmts, final) | ('group', node) | ('pragma', node)]."""
        last_cb = -1
        for i, n in enumerate(stmts):
            if has_barrier(n):
                last_cb = i
        out, cur, cur_id = [], [], None
        for i, n in enumerate(stmts):
            if has_barrier(n):
                if cur:
                    out.append(('region', cur_id, cur, False))
                    cur, cur_id = [], None
                if is_barrier_stmt(n):
                    continue
                out.append(('group', self.plan_stmt(n, top)))
                continue
            if n.kind == 'pragma' and i + 1 < len(stmts) and has_barrier(stmts[i + 1]):
                continue   # a pragma (unroll) for a loop that becomes the group's
            if cur_id is None:
                cur_id = self.new_region()
            final = top and i > last_cb
            self.check_region_stmt(n, final)
            self.note_stmt(n, cur_id)
            cur.append(n)
        if cur:
            out.append(('region', cur_id, cur, top and cur_id is not None))
        return out

    def cond(self, toks):
        for t in toks:
            if t.effect:
                raise Cannot(t, 'an assignment in the condition of a statement with a barrier')
            if t.call and re.match(r'(atomic|atom)_', t.s):
                raise Cannot(t, 'the atomic %s in the condition of a statement with a barrier' % t.s)
        cid = self.new_region()
        self.note(toks, cid)
        return (cid, toks)

    def plan_stmt(self, n, top):
        k = n.kind
        if k == 'block':
            return ('block', self.plan_list(n.body, top))
        if k == 'if':
            return ('if', self.cond(n.cond), self.plan_list(body_of(n.then), False),
                    self.plan_list(body_of(n.other), False) if n.other else None)
        if k == 'while':
            return ('while', self.cond(n.cond), self.plan_list(body_of(n.body), False))
        if k == 'do':
            body = self.plan_list(body_of(n.body), False)
            return ('do', self.cond(n.cond), body)
        if k == 'for':
            init = self.plan_list([n.init], False) if n.init else []
            cond = self.cond(n.cond) if n.cond else None
            body = self.plan_list(body_of(n.body), False)
            incr = []
            if n.incr:
                rid = self.new_region()
                self.note(n.incr, rid)
                incr = [('incr', rid, n.incr)]
            return ('for', init, cond, body, incr)
        if k == 'switch':
            raise Cannot(n.tok, 'a barrier inside a switch')
        raise Cannot(n.tok, 'a barrier inside an expression (only a statement `barrier(...);` splits the kernel)')


def body_of(n):
    return n.body if n.kind == 'block' else [n]


def children(n):
    k = n.kind
    if k == 'block':
        return n.body
    if k == 'if':
        return [n.then] + ([n.other] if n.other else [])
    if k in ('while', 'do', 'switch', 'case'):
        return [n.body]
    if k == 'for':
        return ([n.init] if n.init else []) + [n.body]
    return []


# ---- Output ---------------------------------------------------------------------------------------------------

class Emitter:
    def __init__(self, kernel_file):
        self.gone = False        # a return before a barrier: krt__gone[] marks the work-items that returned
        self.group_end = False   # a condition may leave the group (krt__group_end) when all have returned
        self.out = []
        self.line = None
        self.file = kernel_file
        self.labels = 0

    def at(self, tok):
        if tok is not None and tok.line != self.line and tok.file and not tok.file.startswith('<'):
            self.out.append('\n#line %d "%s"\n' % (tok.line, tok.file))
            self.line = tok.line

    def w(self, s):
        self.out.append(s)

    def toks(self, toks):
        parts = []
        for t in toks:
            s = t.s
            if t.var is not None:
                v = t.var
                if v.mode == 'array':
                    s = '(%s[krt__l])' % v.cname()
                elif v.mode == 'remat':
                    s = v.cname()
            elif t.item_fn:
                s = 'KRT__L_' + s
            if parts:
                parts.append(' ')   # never two tokens run together (a - -b, a / *p)
            parts.append(s)
        self.out.append(''.join(parts))


def ref_vars(toks):
    return [t.var for t in toks if t.var is not None]


def remat_closure(vs):
    """The recomputed variables these tokens need, with the ones they need, in declaration order."""
    seen = {}
    stack = [v for v in vs if v.mode == 'remat']
    while stack:
        v = stack.pop()
        if v.id in seen:
            continue
        seen[v.id] = v
        stack += [u for u in ref_vars(v.init) if u.mode == 'remat']
    return [seen[k] for k in sorted(seen)]


def decl_text(em, v, name):
    spec = [t for t in v.spec if t.s not in ('register',)]
    d = [Tok(name, 'id', t.file, t.line) if t is v.tok else t for t in v.decl]
    em.toks(spec + d)


def emit_remat(em, vs, skip=None):
    for v in remat_closure(vs):
        if v is skip:
            continue
        decl_text(em, v, v.cname())
        em.w(' = ')
        em.toks(v.init)
        em.w('; (void)%s; ' % v.cname())


def emit_stmt(em, n, label):
    """A statement inside a region, as written but for the promoted variables."""
    em.at(n.tok)
    k = n.kind
    if k == 'pragma':
        em.w('\n%s\n' % n.text)
        em.line = None
    elif k == 'expr':
        em.toks(n.toks)
        em.w(';')
    elif k == 'decl':
        if n.static:
            return     # hoisted to the top of the function
        for v in n.vars:
            if v.mode == 'array':
                if v.init is None:
                    continue
                ref = '%s[krt__l]' % v.cname()
                if any(t.s == '[' for t in v.decl):
                    if not v.init or v.init[0].s != '{':
                        raise Cannot(v.tok, 'the private array %s initialized from a string' % v.name)
                    em.w('__builtin_memcpy(%s, (krt__T%d)' % (ref, v.id))
                    em.toks(v.init)
                    em.w(', sizeof(krt__T%d));' % v.id)
                elif v.init[0].s == '{':
                    em.w('%s = (krt__T%d)' % (ref, v.id))
                    em.toks(v.init)
                    em.w(';')
                else:
                    em.w('%s = ' % ref)
                    em.toks(v.init)
                    em.w(';')
            else:
                decl_text(em, v, v.cname() if v.mode == 'remat' else v.name)
                if v.init is not None:
                    em.w(' = ')
                    em.toks(v.init)
                em.w(';')
                if v.mode == 'remat':
                    em.w(' (void)%s;' % v.cname())
    elif k == 'block':
        em.w('{')
        for s in n.body:
            emit_stmt(em, s, label)
        em.w('}')
    elif k == 'if':
        em.w('if (')
        em.toks(n.cond)
        em.w(') ')
        emit_stmt(em, n.then, label)
        if n.other:
            em.w(' else ')
            emit_stmt(em, n.other, label)
    elif k == 'while':
        em.w('while (')
        em.toks(n.cond)
        em.w(') ')
        emit_stmt(em, n.body, label)
    elif k == 'do':
        em.w('do ')
        emit_stmt(em, n.body, label)
        em.w(' while (')
        em.toks(n.cond)
        em.w(');')
    elif k == 'for':
        em.w('for (')
        if n.init is None:
            em.w(';')
        else:
            emit_stmt(em, n.init, label)
        em.toks(n.cond)
        em.w('; ')
        em.toks(n.incr)
        em.w(') ')
        emit_stmt(em, n.body, label)
    elif k == 'switch':
        em.w('switch (')
        em.toks(n.cond)
        em.w(') ')
        emit_stmt(em, n.body, label)
    elif k == 'case':
        em.toks(n.toks)
        em.w(': ')
        emit_stmt(em, n.body, label)
    elif k == 'return':
        label[0] = True
        if em.gone:
            em.w('{ krt__gone[krt__l] = 1; goto krt__next%d; }' % label[1])
        else:
            em.w('goto krt__next%d;' % label[1])
    elif k in ('break', 'continue'):
        em.w(k + ';')


def emit_region(em, stmts, region_id):
    used = set()
    for n in stmts:
        for v in ref_vars(tokens_of(n)):
            used.add(v)
    declared = set()
    for n in stmts:
        if n.kind == 'decl':
            declared.update(n.vars)
    em.w('\nKRT__ITEMS_BEGIN ')
    if em.gone:
        em.w('if (krt__gone[krt__l]) continue; ')
    em.w('{ ')
    emit_remat(em, [v for v in used if v not in declared])
    em.labels += 1
    label = [False, em.labels]
    for n in stmts:
        emit_stmt(em, n, label)
    em.w(' }')
    if label[0]:
        em.w(' krt__next%d:;' % label[1])
    em.w(' KRT__ITEMS_END\n')
    em.line = None


def emit_cond(em, cond):
    """A condition as work-item 0 of the group sees it (a statement expression)."""
    cid, toks = cond
    if em.gone:
        em.group_end = True
    em.w('KRT__UNIFORM_GONE_BEGIN ' if em.gone else 'KRT__UNIFORM_BEGIN ')
    emit_remat(em, ref_vars(toks))
    em.w('(')
    em.toks(toks)
    em.w('); })')


def emit_plan(em, plan):
    for item in plan:
        if item[0] == 'region':
            emit_region(em, item[2], item[1])
        elif item[0] == 'incr':
            n = Node('expr', item[2][0] if item[2] else None, toks=item[2])
            emit_region(em, [n], item[1])
        elif item[0] == 'group':
            emit_group(em, item[1])


def emit_group(em, g):
    k = g[0]
    if k == 'block':
        em.w('{')
        emit_plan(em, g[1])
        em.w('}\n')
    elif k == 'if':
        em.w('if (')
        emit_cond(em, g[1])
        em.w(') {')
        emit_plan(em, g[2])
        em.w('}')
        if g[3] is not None:
            em.w(' else {')
            emit_plan(em, g[3])
            em.w('}')
        em.w('\n')
    elif k == 'while':
        em.w('for (;;) { if (!')
        emit_cond(em, g[1])
        em.w(') break;\n')
        emit_plan(em, g[2])
        em.w('}\n')
    elif k == 'do':
        em.w('for (;;) {\n')
        emit_plan(em, g[2])
        em.w('if (!')
        emit_cond(em, g[1])
        em.w(') break; }\n')
    elif k == 'for':
        _, init, cond, body, incr = g
        em.w('{')
        emit_plan(em, init)
        em.w('for (;;) {')
        if cond is not None:
            em.w(' if (!')
            emit_cond(em, cond)
            em.w(') break;')
        em.w('\n')
        emit_plan(em, body)
        emit_plan(em, incr)
        em.w('} }\n')


def all_vars(n, out):
    if n.kind == 'decl':
        out.extend(n.vars)
    for c in children(n):
        all_vars(c, out)
    return out


def remat_ok(v, params):
    """A scalar computed from work-item ids, parameters and constants, never assigned after its declaration. Not
    one that reads memory (p[i], *p, p->x): memory may change at a barrier, and the value must be the one read
    before it."""
    if v.static or v.init is None or v.written or v.mode != 'array':
        return False
    if any(t.s in ('*', '[', '(') for t in v.decl):
        return False
    if not all(t.s in SCALAR for t in v.spec):
        return False
    for t in v.init:
        if t.var is not None:
            if t.var.mode != 'remat':
                return False
        elif t.kind == 'id':
            if not (t.item_fn or t.s in SCALAR or t.s == 'sizeof' or t.param):
                return False
        elif t.kind not in ('num', 'op') or t.s in ASSIGN or t.s in ('{', '}', ';', '?', ':', '[', '->') or t.deref:
            return False
    return True


def transform(name, params_toks, tree, pnames, em, publish):
    """One barrier kernel: its krt__loops_ function, or Cannot."""
    pl = Planner()
    plan = pl.plan_list(tree.body, True)
    vs = all_vars(tree, [])
    for v in vs:
        if not v.static and len(v.regions) > 1:
            v.mode = 'array'
    # A pointer kept across a barrier may point at a private variable or array that is used in one region only:
    # that one must outlive its region too, so it gets its array as well.
    if any(v.mode == 'array' and any(t.s == '*' for t in v.decl) for v in vs):
        for v in vs:
            if not v.static and (v.addressed or any(t.s == '[' for t in v.decl)):
                v.mode = 'array'
    for v in sorted(vs, key=lambda v: v.id):
        if remat_ok(v, pnames):
            v.mode = 'remat'
    statics = [v for v in vs if v.static]
    names = [v.name for v in statics]
    if len(set(names)) != len(names):
        raise Cannot(statics[0].tok, 'two __local variables of the same name')
    em.at(tree.tok)
    em.w('static inline __attribute__((always_inline, unused)) void krt__loops_%s(' % name)
    em.toks(params_toks)
    em.w(', const struct krt_host_group *krt__g)\n{\n')
    for v in statics:
        em.at(v.tok)
        decl_text(em, v, v.name)
        if v.init is not None:
            em.w(' = ')
            em.toks(v.init)
        em.w(';\n')
    em.w('KRT__LOOPS_SETUP(krt__g);\nconst int krt__publish = KRT__PUBLISH(%d);\n' % publish)
    for v in vs:
        if v.mode == 'array':
            em.at(v.tok)
            spec = [t for t in v.spec if t.s not in ('register', 'auto')]
            ptr = any(t.s == '*' for t in v.decl)
            if not ptr:
                spec = [t for t in spec if t.s != 'const']
            d, seen_star = [], False
            for t in v.decl:
                if t is v.tok:
                    d.append(Tok('krt__T%d' % v.id, 'id', t.file, t.line))
                    continue
                if t.s == '*':
                    seen_star = True
                if t.s == 'const' and seen_star:
                    continue
                d.append(t)
            em.w('typedef ')
            em.toks(spec + d)
            em.w('; KRT__PRIVATE(krt__T%d, %s);\n' % (v.id, v.cname()))
    em.gone = pl.early
    if em.gone:
        em.w('KRT__PRIVATE(unsigned char, krt__gone);\n')
    em.w('KRT__GROUPS_BEGIN\n')
    if em.gone:
        em.w('__builtin_memset(krt__gone, 0, krt__lx * krt__ly * krt__lz);\n')
    emit_plan(em, plan)
    if em.group_end:
        em.w('\nkrt__group_end:;')
    em.w('\nKRT__GROUPS_END\n')
    for v in vs:
        if v.mode == 'array':
            em.w('KRT__PRIVATE_FREE(krt__T%d, %s);\n' % (v.id, v.cname()))
    if em.gone:
        em.w('KRT__PRIVATE_FREE(unsigned char, krt__gone);\n')
    em.w('}\n')


def function_refs(unit, c):
    """The functions a function's body names (calls them, or takes their address)."""
    K = unit.ci.CursorKind
    out = set()
    for d in c.walk_preorder():
        if d.kind == K.DECL_REF_EXPR:
            r = d.referenced
            if r is not None and r.kind == K.FUNCTION_DECL:
                out.add(r.spelling)
    return out


def note(t, name, why):
    print('krt-cc: note: %s:%d: kernel %s keeps a stack per work-item at its barriers (slower): %s' %
          (t.file, t.line, name, why), file=sys.stderr)


def write(path_c, path_names, code, done):
    with open(path_c, 'w') as f:
        f.write(code)
        f.write('\n')
    with open(path_names, 'w') as f:
        f.write(''.join(x + '\n' for x in done))


def main():
    if len(sys.argv) != 4:
        print('usage: krt_loops.py UNIT.i OUT.c NAMES', file=sys.stderr)
        return 2
    unit = Unit(sys.argv[1])
    if not unit.user_text_has_barrier():
        write(sys.argv[2], sys.argv[3], '', [])
        return 0
    ci, why = load_clang()
    if ci is None:
        print('krt-cc: note: %s: kernels with barriers keep a stack per work-item (slower): their work-item loops '
              'need libclang, and %s: install the Debian package %s (apt-get install %s)' %
              (unit.barrier_file, why, PACKAGE, PACKAGE), file=sys.stderr)
        write(sys.argv[2], sys.argv[3], '', [])
        return 0
    unit.parse(ci)
    K = ci.CursorKind
    # The kernels (the marker became an annotation), and every function defined in the unit with the functions
    # it names; those of the system's headers and krt_kernel*.h are not read (they call no barrier()).
    kernels, funcs = [], {}
    for c in unit.tu.cursor.get_children():
        if c.kind != K.FUNCTION_DECL or not c.is_definition():
            continue
        f = unit.where(c.location.line)[0]
        is_kernel = any(a.kind == K.ANNOTATE_ATTR and a.spelling == 'krt__kernel' for a in c.get_children())
        if is_kernel:
            kernels.append(c)
        sys_fn = f.startswith('/usr/') or KRT_HEADER.search(f)
        funcs[c.spelling] = (f, is_kernel, set() if sys_fn else function_refs(unit, c))
    kernel_names = {c.spelling for c in kernels}
    # Functions other than kernels that call barrier(), directly or through each other: a kernel that calls
    # one keeps its fibers, since the helper's barrier would run inside a region's work-item loop.
    barrier_fns = {f for f, (file, is_k, refs) in funcs.items() if not is_k and 'barrier' in refs}
    grew = True
    while grew:
        grew = False
        for f, (file, is_k, refs) in funcs.items():
            if not is_k and f not in barrier_fns and refs & barrier_fns:
                barrier_fns.add(f)
                grew = True
    # Functions that may read the thread-local work-item pointer: the kernel's own helpers and krt_kernel.h's
    # (not the system's, nor krt_kernel_host.h's built-ins, whose work-item functions the loops replace). A
    # kernel that calls one gets the ids stored where that pointer points at every work-item (krt__publish).
    item_readers = {f for f, (file, is_k, refs) in funcs.items()
                    if not file.startswith('/usr/') and not re.search(r'krt_kernel_host\.h$', file)}
    item_readers |= {'get_global_linear_id', 'get_local_linear_id'} | kernel_names
    em = Emitter(None)
    done, seen = [], set()
    for c in kernels:
        name = c.spelling
        refs = funcs[name][2]
        if name in seen or ('barrier' not in refs and not refs & barrier_fns):
            continue
        seen.add(name)
        f, line = unit.where(c.location.line)
        where = Tok(name, 'id', f, line)
        try:
            Var.count = 0
            r = Reader(unit, c)
            r.analyse(c)
            for fname, off in r.fn_refs:
                if fname in barrier_fns:
                    raise Cannot(r.at(off), 'it calls %s, which has a barrier' % fname)
            for other in kernels:
                if other.spelling != name and name in funcs[other.spelling][2]:
                    raise Cannot(where, 'another kernel calls it')
            body = [b for b in c.get_children() if b.kind == K.COMPOUND_STMT]
            if len(body) != 1:
                raise Cannot(where, 'cannot read the kernel')
            i = r.idx(c.location.offset)
            o, e = r.parens(i)
            params_toks = r.toks[o + 1:e]
            tree = r.block(body[0])
            r.check_pragmas(*ext(body[0]))
            r.resolve()
            pnames = {p.spelling for p in c.get_children() if p.kind == K.PARM_DECL}
            sub = Emitter(None)
            transform(name, params_toks, tree, pnames, sub, bool(refs & item_readers))
            em.out += sub.out
            done.append(name)
        except Cannot as e:
            note(e.tok or where, name, e)
        except Exception as e:   # a construct this reader does not know: the fibers are always right
            note(where, name, 'krt_loops.py cannot read it (%s: %s)' % (type(e).__name__, e))
    write(sys.argv[2], sys.argv[3], ''.join(em.out), done)
    return 0


if __name__ == '__main__':
    sys.exit(main())
