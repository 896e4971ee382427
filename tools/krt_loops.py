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

A kernel this cannot transform (a return or break before a barrier, goto, switch around a barrier, a barrier
in a helper function, ...) keeps its stack per work-item (fibers), which is correct but slower: a note on
stderr names the kernel, its line and the reason. Only statements are parsed; expressions are token lists in
which the identifiers are resolved to the declarations they name.
"""
import re
import sys

TOKEN = re.compile(r'''
    (?P<ws>[ \t\r\f\v]+|\n)
  | (?P<marker>^\#[^\n]*)
  | (?P<id>[A-Za-z_][A-Za-z0-9_]*)
  | (?P<num>\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*)
  | (?P<str>L?"(?:\\.|[^"\\\n])*")
  | (?P<chr>L?'(?:\\.|[^'\\\n])*')
  | (?P<op>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=|[][(){}.,;:?~!+\-*/%&|^=<>\#])
''', re.X | re.M)

TYPE_KW = {'void', 'char', 'short', 'int', 'long', 'float', 'double', 'signed', 'unsigned', '_Bool', '_Complex',
           '__int128', '_Float32', '_Float64', '_Float128', '_Float32x', '_Float64x', '__float128',
           '__builtin_va_list', '__signed__', '__typeof__', 'typeof', '__typeof'}
QUAL_KW = {'const', 'volatile', 'restrict', '__restrict', '__restrict__', '_Atomic', 'register', 'static',
           'extern', 'auto', '_Thread_local', '__thread', 'inline', '__inline', '__inline__', '_Alignas',
           '__extension__', 'typedef'}
SCALAR = {'char', 'short', 'int', 'long', 'float', 'double', 'signed', 'unsigned', '_Bool', 'size_t',
          'ptrdiff_t', 'uint', 'uchar', 'ushort', 'ulong', 'int8_t', 'int16_t', 'int32_t', 'int64_t', 'uint8_t',
          'uint16_t', 'uint32_t', 'uint64_t', 'intptr_t', 'uintptr_t', 'bool', 'const'}
ASSIGN = {'=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>=', '++', '--'}
# The work-item functions a recomputed variable may call, and their loops versions (krt_kernel_host.h), which
# read the loop's own copy of the work-item state rather than the thread-local pointer.
ITEM_FNS = {'get_global_id', 'get_local_id', 'get_group_id', 'get_local_size', 'get_global_size',
            'get_num_groups', 'get_work_dim', 'get_global_offset', 'get_enqueued_local_size',
            'get_global_linear_id', 'get_local_linear_id'}


class Cannot(Exception):
    """The kernel keeps its fibers; the message says why, in a kernel author's words."""

    def __init__(self, tok, why):
        super().__init__(why)
        self.tok = tok


class Tok:
    __slots__ = ('s', 'kind', 'file', 'line', 'var')

    def __init__(self, s, kind, file, line):
        self.s, self.kind, self.file, self.line, self.var = s, kind, file, line, None


def tokenize(text):
    toks, file, line = [], '?', 1
    for m in TOKEN.finditer(text):
        kind = m.lastgroup
        s = m.group()
        if kind == 'ws':
            if s == '\n':
                line += 1
            continue
        if kind == 'marker':
            mm = re.match(r'#\s*(?:line\s+)?(\d+)\s+"((?:\\.|[^"])*)"', s)
            if mm:
                line, file = int(mm.group(1)) - 1, mm.group(2)
            elif s.startswith('#pragma') or s.startswith('# pragma'):
                toks.append(Tok(s, 'pragma', file, line))
            continue
        toks.append(Tok(s, kind, file, line))
    return toks


class Var:
    count = 0

    def __init__(self, name, spec, decl, init, static, tok):
        Var.count += 1
        self.id, self.name, self.spec, self.decl, self.init = Var.count, name, spec, decl, init
        self.static, self.tok = static, tok
        self.regions = set()
        self.written = False
        self.addressed = False   # &name somewhere: a pointer may reach it from another region
        self.mode = 'plain'      # plain | array (one per work-item) | remat (computed again where used)

    def cname(self):
        return 'krt__v%d_%s' % (self.id, self.name)


# ---- Statements ---------------------------------------------------------------------------------------------

class Node:
    def __init__(self, kind, tok, **kw):
        self.kind, self.tok = kind, tok
        self.__dict__.update(kw)


class Parser:
    def __init__(self, toks, typedefs, params):
        self.t, self.i, self.typedefs = toks, 0, typedefs
        self.scopes = [{}]
        self.params = params

    def peek(self, k=0):
        return self.t[self.i + k].s if self.i + k < len(self.t) else ''

    def tok(self):
        return self.t[self.i] if self.i < len(self.t) else self.t[-1]

    def take(self, s=None):
        t = self.tok()
        if s is not None and t.s != s:
            raise Cannot(t, 'cannot read the kernel here (expected "%s")' % s)
        self.i += 1
        return t

    def lookup(self, name):
        for sc in reversed(self.scopes):
            if name in sc:
                return sc[name]
        return None

    def until(self, stops):
        """Tokens up to one of stops at depth 0 (not consumed), identifiers resolved."""
        out, depth = [], 0
        while self.i < len(self.t):
            t = self.t[self.i]
            if depth == 0 and t.s in stops:
                return out
            if t.s in '([{':
                depth += 1
            elif t.s in ')]}':
                depth -= 1
                if depth < 0:
                    raise Cannot(t, 'cannot read the kernel here (unbalanced "%s")' % t.s)
            out.append(self.resolve(t, out))
            self.i += 1
        raise Cannot(self.t[-1], 'cannot read the kernel (it ends early)')

    def resolve(self, t, before):
        if t.kind == 'id' and not (before and before[-1].s in ('.', '->')):
            v = self.lookup(t.s)
            if v is not None:
                c = Tok(t.s, t.kind, t.file, t.line)
                c.var = v
                return c
        return t

    def balanced(self):
        """A (...) group, resolved, without its parentheses."""
        self.take('(')
        out = self.until({')'})
        self.take(')')
        return out

    def is_decl(self):
        s = self.peek()
        if s in TYPE_KW or s in ('struct', 'union', 'enum', '__attribute__', '_Static_assert'):
            return s != '_Static_assert'
        if s == '__extension__':
            return self.peek(1) in TYPE_KW or self.peek(1) in self.typedefs
        if s in QUAL_KW:
            return True
        return s in self.typedefs and self.lookup(s) is None and self.peek(1) not in (':', '(')

    def statement(self):
        t = self.tok()
        s = t.s
        if t.kind == 'pragma':
            self.i += 1
            return Node('pragma', t, text=s)
        if s == '{':
            return self.block()
        if s == ';':
            self.i += 1
            return Node('expr', t, toks=[])
        if s == 'if':
            self.i += 1
            cond = self.balanced()
            then = self.scoped_statement()
            other = None
            if self.peek() == 'else':
                self.i += 1
                other = self.scoped_statement()
            return Node('if', t, cond=cond, then=then, other=other)
        if s == 'while':
            self.i += 1
            cond = self.balanced()
            return Node('while', t, cond=cond, body=self.scoped_statement())
        if s == 'do':
            self.i += 1
            body = self.scoped_statement()
            self.take('while')
            cond = self.balanced()
            self.take(';')
            return Node('do', t, cond=cond, body=body)
        if s == 'for':
            self.i += 1
            self.take('(')
            self.scopes.append({})
            if self.peek() == ';':
                init = None
                self.i += 1
            elif self.is_decl():
                init = self.declaration()
            else:
                init = Node('expr', self.tok(), toks=self.until({';'}))
                self.take(';')
            cond = self.until({';'})
            self.take(';')
            incr = self.until({')'})
            self.take(')')
            body = self.scoped_statement()
            self.scopes.pop()
            return Node('for', t, init=init, cond=cond, incr=incr, body=body)
        if s == 'switch':
            self.i += 1
            cond = self.balanced()
            return Node('switch', t, cond=cond, body=self.scoped_statement())
        if s in ('case', 'default'):
            self.i += 1
            toks = self.until({':'}) if s == 'case' else []
            self.take(':')
            return Node('case', t, toks=[t] + toks)
        if s == 'return':
            self.i += 1
            toks = self.until({';'})
            self.take(';')
            return Node('return', t, toks=toks)
        if s in ('break', 'continue'):
            self.i += 1
            self.take(';')
            return Node(s, t)
        if s == 'goto':
            raise Cannot(t, 'goto')
        if t.kind == 'id' and self.peek(1) == ':' and self.lookup(s) is None:
            raise Cannot(t, 'the label ' + s)
        if self.is_decl():
            return self.declaration()
        toks = self.until({';'})
        self.take(';')
        return Node('expr', t, toks=toks)

    def scoped_statement(self):
        self.scopes.append({})
        n = self.statement()
        self.scopes.pop()
        return n

    def block(self):
        t = self.take('{')
        self.scopes.append({})
        body = []
        while self.peek() != '}':
            if self.i >= len(self.t):
                raise Cannot(t, 'cannot read the kernel (a block does not end)')
            body.append(self.statement())
        self.take('}')
        self.scopes.pop()
        return Node('block', t, body=body)

    def declaration(self):
        t = self.tok()
        spec = []
        typed = False
        while True:
            s = self.peek()
            if s == '__attribute__' or s == '_Alignas' or s in ('__typeof__', 'typeof', '__typeof'):
                spec.append(self.take())
                grp = self.tok()
                inner = self.balanced()
                spec += [Tok('(', 'op', grp.file, grp.line)] + inner + [Tok(')', 'op', grp.file, grp.line)]
                typed = typed or s != '__attribute__'
            elif s in ('struct', 'union', 'enum'):
                spec.append(self.take())
                if self.tok().kind == 'id':
                    spec.append(self.take())
                if self.peek() == '{':
                    raise Cannot(t, 'a struct, union or enum defined inside the kernel')
                typed = True
            elif s in TYPE_KW or s in QUAL_KW:
                if s == 'typedef':
                    raise Cannot(t, 'a typedef inside the kernel')
                spec.append(self.take())
                typed = typed or s in TYPE_KW
            elif not typed and s in self.typedefs and self.lookup(s) is None:
                spec.append(self.take())
                typed = True
            else:
                break
        static = any(x.s in ('static', '_Thread_local', '__thread', 'extern') for x in spec)
        decls = []
        while True:
            dtoks = self.until({'=', ',', ';'})
            names = [x for x in dtoks if x.kind == 'id' and x.s not in QUAL_KW and x.s != '__attribute__']
            if not names:
                raise Cannot(t, 'cannot read the declaration here')
            name_tok = names[0]
            init = None
            v = Var(name_tok.s, spec, dtoks, None, static, name_tok)
            self.scopes[-1][name_tok.s] = v
            if self.peek() == '=':
                self.i += 1
                init = self.until({',', ';'})
                v.init = init
            decls.append(v)
            if self.peek() == ',':
                self.i += 1
                continue
            self.take(';')
            break
        return Node('decl', t, spec=spec, vars=decls, static=static)


# ---- Where barriers are ------------------------------------------------------------------------------------

SEP = Tok(';', 'op', '', 0)


def tokens_of(n):
    """Every token of a statement, nested statements included, its parts apart (a ; between them), so that
    `k++) t[...]` is not read as ++t."""
    k = n.kind
    if k in ('expr', 'return', 'case'):
        return list(n.toks) + [SEP]
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


def calls_barrier(toks):
    return any(t.s == 'barrier' and t.kind == 'id' and t.var is None and i + 1 < len(toks) and toks[i + 1].s == '('
               for i, t in enumerate(toks))


def is_barrier_stmt(n):
    """barrier(...); or (void)barrier(...); alone."""
    if n.kind != 'expr':
        return False
    t = n.toks[3:] if [x.s for x in n.toks[:3]] == ['(', 'void', ')'] else n.toks
    if len(t) < 3 or t[0].s != 'barrier' or t[1].s != '(' or t[-1].s != ')' or calls_barrier(t[1:]):
        return False
    depth = 0
    for x in t[1:-1]:
        depth += (x.s == '(') - (x.s == ')')
        if depth == 0:
            return False
    return True


def has_barrier(n):
    return calls_barrier(tokens_of(n))


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
        for i, t in enumerate(toks):
            if t.var is not None:
                t.var.regions.add(region)
                nxt = toks[i + 1].s if i + 1 < len(toks) else ''
                prv = toks[i - 1].s if i > 0 else ''
                if nxt in ASSIGN or prv in ('++', '--', '&'):
                    t.var.written = True
                if prv == '&':
                    t.var.addressed = True

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
            if t.s in ASSIGN:
                raise Cannot(t, 'an assignment in the condition of a statement with a barrier')
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
    if k in ('while', 'do', 'switch'):
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
        prev = None
        for t in toks:
            s = t.s
            if t.var is not None:
                v = t.var
                if v.mode == 'array':
                    s = '(%s[krt__l])' % v.cname()
                elif v.mode == 'remat':
                    s = v.cname()
            elif t.kind == 'id' and s in ITEM_FNS and not (prev and prev.s in ('.', '->')):
                s = 'KRT__L_' + s
            if parts:
                parts.append(' ')   # never two tokens run together (a - -b, a / *p)
            parts.append(s)
            prev = t
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
    """A scalar computed from work-item ids, parameters and constants, never assigned after its declaration."""
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
            if not (t.s in ITEM_FNS or t.s in SCALAR or t.s == 'sizeof' or t.s in params):
                return False
        elif t.kind not in ('num', 'op') or t.s in ASSIGN or t.s in ('{', '}', ';', '?', ':'):
            return False
    return True


def transform(name, params_toks, body, typedefs, em, publish):
    """One barrier kernel: its krt__loops_ function, or Cannot."""
    params = []
    depth, cur = 0, []
    for t in params_toks:
        if t.s == '(':
            depth += 1
        elif t.s == ')':
            depth -= 1
        if t.s == ',' and depth == 0:
            params.append(cur)
            cur = []
        else:
            cur.append(t)
    params.append(cur)
    pnames = set()
    for p in params:
        ids = [t.s for t in p if t.kind == 'id' and t.s not in QUAL_KW and t.s not in TYPE_KW and
               t.s not in typedefs]
        if ids:
            pnames.add(ids[-1])
    Var.count = 0
    parser = Parser(body, typedefs, pnames)
    tree = parser.block()
    # A parameter assigned in the body would be shared by the group's work-items.
    toks = tokens_of(tree)
    for i, t in enumerate(toks):
        if t.kind == 'id' and t.var is None and t.s in pnames:
            nxt = toks[i + 1].s if i + 1 < len(toks) else ''
            prv = toks[i - 1].s if i > 0 else ''
            if (nxt in ASSIGN or prv in ('++', '--')) and prv not in ('.', '->'):
                raise Cannot(t, 'the kernel assigns to its parameter ' + t.s)
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
    em.w('KRT__LOOPS_SETUP(krt__g);\nconst int krt__publish = %d;\n' % publish)
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


def typedef_names(toks):
    names = set()
    i, n = 0, len(toks)
    depth = 0
    while i < n:
        t = toks[i]
        if t.s in '({[':
            depth += 1
        elif t.s in ')}]':
            depth -= 1
        if t.s == 'typedef' and depth == 0:
            j, d, part, parts = i + 1, 0, [], []
            while j < n and not (d == 0 and toks[j].s == ';'):
                s = toks[j].s
                if s in ('__attribute__', '__attribute', '__asm__', '__asm') and j + 1 < n and toks[j + 1].s == '(':
                    k, dd = j + 1, 0
                    while k < n:
                        dd += toks[k].s == '('
                        dd -= toks[k].s == ')'
                        if dd == 0:
                            break
                        k += 1
                    j = k + 1
                    continue
                if s in '({[':
                    d += 1
                elif s in ')}]':
                    d -= 1
                if d == 0 and s == ',':
                    parts.append(part)
                    part = []
                elif d == 0 or (d == 1 and s not in '{(['):
                    part.append(toks[j]) if d == 0 or s == '*' or toks[j].kind == 'id' else None
                j += 1
            parts.append(part)
            for p in parts:
                ss = [x.s for x in p]
                # typedef void (*fn)(...): the name after "*"; otherwise the last identifier.
                if '*' in ss and ss and p and any(x.kind == 'id' for x in p):
                    ids = [x.s for x in p if x.kind == 'id']
                    names.add(ids[-1])
                else:
                    ids = [x.s for x in p if x.kind == 'id']
                    if ids:
                        names.add(ids[-1])
            i = j
            continue
        i += 1
    return names


def main():
    if len(sys.argv) != 4:
        print('usage: krt_loops.py UNIT.i OUT.c NAMES', file=sys.stderr)
        return 2
    text = open(sys.argv[1], encoding='utf-8', errors='replace').read()
    toks = tokenize(text)
    typedefs = typedef_names(toks) | {'size_t', 'ptrdiff_t', 'uint', 'uchar', 'ushort', 'ulong'}
    # The kernels: marker, its name before "(", the parameters, the body.
    kernels, i, n = [], 0, len(toks)
    kernel_starts = set()
    while i < n:
        if toks[i].s == 'krt__kernel_marker__':
            j, name = i + 1, None
            while j < n and toks[j].s != '(':
                if toks[j].s in ('__attribute__', '__attribute') and j + 1 < n and toks[j + 1].s == '(':
                    d, j = 0, j + 1
                    while j < n:
                        d += toks[j].s == '('
                        d -= toks[j].s == ')'
                        if d == 0:
                            break
                        j += 1
                elif toks[j].kind == 'id':
                    name = toks[j]
                j += 1
            d, k = 0, j
            while k < n:
                d += toks[k].s == '('
                d -= toks[k].s == ')'
                if d == 0:
                    break
                k += 1
            params = toks[j + 1:k]
            if k + 1 < n and toks[k + 1].s == '{' and name is not None:
                d, e = 0, k + 1
                while e < n:
                    d += toks[e].s == '{'
                    d -= toks[e].s == '}'
                    if d == 0:
                        break
                    e += 1
                kernels.append((name, params, toks[k + 1:e + 1]))
                kernel_starts.add(k + 1)
                i = e + 1
                continue
            i = k + 1
            continue
        i += 1
    # Functions other than kernels that call barrier(), directly or through each other: a kernel that calls
    # one keeps its fibers, since the helper's barrier would run inside a region's work-item loop.
    funcs = {}
    depth = 0
    for idx, t in enumerate(toks):
        if t.s == '{':
            if depth == 0 and idx > 0 and toks[idx - 1].s == ')' and idx not in kernel_starts:
                d, j = 0, idx - 1
                while j >= 0:
                    d += (toks[j].s == ')') - (toks[j].s == '(')
                    if d == 0:
                        break
                    j -= 1
                if j > 0 and toks[j - 1].kind == 'id':
                    d, e = 0, idx
                    while e < n:
                        d += (toks[e].s == '{') - (toks[e].s == '}')
                        if d == 0:
                            break
                        e += 1
                    funcs[toks[j - 1].s] = (t.file, toks[idx:e + 1])
            depth += 1
        elif t.s == '}':
            depth -= 1
    barrier_fns = {f for f, (file, body) in funcs.items()
                   if calls_barrier(body) and not re.search(r'krt_kernel(_host)?\.h$', file)}
    grew = True
    while grew:
        grew = False
        for f, (file, body) in funcs.items():
            if f not in barrier_fns and any(x.s in barrier_fns for x in body):
                barrier_fns.add(f)
                grew = True
    # Functions that may read the thread-local work-item pointer: the kernel's own helpers and krt_kernel.h's
    # (not the system's, nor krt_kernel_host.h's built-ins, whose work-item functions the loops replace). A
    # kernel that calls one gets the ids stored where that pointer points at every work-item (krt__publish).
    item_readers = {f for f, (file, body) in funcs.items()
                    if not file.startswith('/usr/') and not re.search(r'krt_kernel_host\.h$', file)}
    item_readers |= {'get_global_linear_id', 'get_local_linear_id'} | {k[0].s for k in kernels}
    barrier_kernels = {k[0].s for k in kernels if calls_barrier(k[2])}
    em = Emitter(None)
    done = []
    seen = set()
    for name, params, body in kernels:
        if name.s in seen or name.s not in barrier_kernels:
            continue
        seen.add(name.s)
        try:
            helper = next((t for t in body if t.s in barrier_fns), None)
            if helper is not None:
                raise Cannot(helper, 'it calls %s, which has a barrier' % helper.s)
            for other in kernels:
                if other[0].s != name.s and any(t.s == name.s for t in other[2]):
                    raise Cannot(name, 'another kernel calls it')
            sub = Emitter(None)
            publish = any(t.kind == 'id' and t.s in item_readers and i + 1 < len(body) and body[i + 1].s == '('
                          for i, t in enumerate(body))
            transform(name.s, params, body, typedefs, sub, publish)
            em.out += sub.out
            done.append(name.s)
        except Cannot as c:
            t = c.tok or name
            print('krt-cc: note: %s:%d: kernel %s keeps a stack per work-item at its barriers (slower): %s' %
                  (t.file, t.line, name.s, c), file=sys.stderr)
        except (IndexError, AttributeError, TypeError) as e:   # a construct this reader does not know
            print('krt-cc: note: %s:%d: kernel %s keeps a stack per work-item at its barriers (slower): '
                  'krt_loops.py cannot read it (%s)' % (name.file, name.line, name.s, e), file=sys.stderr)
    with open(sys.argv[2], 'w') as f:
        f.write(''.join(em.out))
        f.write('\n')
    with open(sys.argv[3], 'w') as f:
        f.write(''.join(x + '\n' for x in done))
    return 0


if __name__ == '__main__':
    sys.exit(main())
