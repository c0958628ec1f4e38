# Copyright 2026 the asyncctx authors. All rights reserved.
"""Generator of random programs for the differential fuzzer.

One seed gives one program, as a tree of statements that renders twice:

  real   plain JavaScript over the shell's globals (await, p.then(...),
         {then(res, rej) {...}}, new Promise(...))
  model  the same program for test/fuzz/model.js, where every place a frame
         is captured implicitly by the engine is made explicit through the M
         helpers (see model.js). Only those spots differ between the two.

The program is a function `main($)` the driver calls from a timer. It uses
1-3 AsyncLocalStorage instances (S[i]), 0-2 AsyncContext.Variables (V[j]),
captured callables (K[k]: snapshots, wrapped/bound functions, resources) and
probes P(label[, value]) that record every store, every variable and the
execution/trigger ids.

The generator keeps programs deterministic and inside the documented
semantics:
  * one kind of macrotask per program (all setTimeout(f) with the same 1 ms
    delay, which fire in order, or all setImmediate), so both runs schedule
    identically
  * every rejection is handled synchronously (await in try/catch, then with a
    rejection handler, Promise.all), and nothing throws out of a timer or a
    microtask
  * no enterWith directly in a queueMicrotask callback, a thenable's then()
    or a Promise executor (the fast path's documented limitation:
    docs/semantics.md, "Known limitation of the fast path")
  * a thenable is resolved into a promise only where the promise's creation
    frame and the frame of the resolve are the same, unless
    ambiguous_thenables is set (see model.js, THENABLE_RULE)
"""

import random


class Code:
    """Text that may differ between the real and the model rendering."""

    def __init__(self, render):
        self.render = render


def R(code, model):
    if isinstance(code, str):
        return code
    return code.render(model)


def J(*parts):
    return Code(lambda m: "".join(R(p, m) for p in parts))


def Alt(real, model):
    return Code(lambda m: R(model if m else real, m))


def indent(text):
    return "\n".join(("  " + line) if line else line
                     for line in text.split("\n"))


class Block:
    """A list of statements; the reducer deletes entries."""

    def __init__(self, stmts):
        self.stmts = stmts

    def render(self, model):
        return "\n".join(t for t in (R(s, model) for s in self.stmts) if t)

    def braces(self):
        def render(m):
            body = self.render(m)
            return "{\n" + indent(body) + "\n}" if body else "{}"
        return Code(render)


class Ctx:
    # in_scope: the code runs synchronously inside a scope call (run, exit,
    # runInAsyncScope, a bound function...) of the same callback. Node.js
    # lets an enterWith there leak out of the scope; asyncctx restores the
    # exact previous frame (docs/semantics.md), so the Node dialect avoids it.
    # microtask_top: the statements at the top of a bare queueMicrotask
    # callback, whose frame is restored when the callback returns, so an
    # enterWith there reaches nothing else (not inherited by children).
    __slots__ = ("is_async", "no_leak", "depth", "keep_no_leak", "in_scope",
                 "microtask_top")

    def __init__(self, is_async=False, no_leak=False, depth=0,
                 keep_no_leak=False, in_scope=False, microtask_top=False):
        self.is_async = is_async
        self.no_leak = no_leak
        self.depth = depth
        self.keep_no_leak = keep_no_leak
        self.in_scope = in_scope
        self.microtask_top = microtask_top

    def child(self, **changes):
        c = Ctx(self.is_async, self.no_leak, self.depth + 1,
                self.keep_no_leak, self.in_scope)
        for k, v in changes.items():
            setattr(c, k, v)
        return c


MAX_DEPTH = 5


# Dialects: what a program may use.
#   asyncctx  everything asyncctx offers, compared with the reference model
#   node      only what asyncctx shares with Node.js 24 (no AsyncContext, no
#             hooks, no execution ids, no disable, no enterWith inside a
#             synchronous scope, no invalid callbacks to run/exit/
#             runInAsyncScope, where Node throws a plain TypeError without a
#             code), compared with the real Node.js binary
DIALECTS = ("asyncctx", "node")


class Program:
    def __init__(self, seed, ambiguous_thenables=False, size=None,
                 dialect="asyncctx", extended=False, hook_timers=False):
        assert dialect in DIALECTS
        self.seed = seed
        self.rng = random.Random(seed)
        self.ambiguous = ambiguous_thenables
        self.node = dialect == "node"
        # The extended shapes: enterWith at the top of a bare
        # queueMicrotask callback (its frame is restored after it), stack
        # overflows, overridden and patched runInAsyncScope.
        self.extended = extended
        self.enter_with_anywhere = extended
        self.blocks = []
        self.n = 0
        rng = self.rng
        self.budget = size if size is not None else rng.choice(
            [30, 60, 120, 180, 240])
        self.n_als = rng.randint(1, 3)
        self.n_var = rng.randint(0, 2)
        self.macro = rng.choice(["setTimeout", "setTimeout", "setImmediate"])
        self.hooked = rng.random() < 0.2
        if self.node:
            self.n_var = 0
            self.hooked = False
        self.hook_kinds = [k for k in ("init", "before", "after", "destroy",
                                       "promiseResolve")
                           if rng.random() < 0.5] if self.hooked else []
        # The hostile mode (--pollute): the hook calls timer methods from its
        # init, before, after and destroy callbacks (hook_timer_calls). Its
        # own generator, so the rest of the program is drawn as without.
        self.timer_calls = None
        if hook_timers and not self.node:
            trng = random.Random(seed * 7919 + 23)
            if not self.hooked and trng.random() < 0.5:
                self.hooked = True
                self.hook_kinds = []
            if self.hooked:
                self.timer_calls = hook_timer_calls(trng)
        self.defaults = [rng.random() < 0.3 for _ in range(self.n_als)]
        # APM tools patch AsyncResource.prototype.runInAsyncScope; bind()
        # and the AsyncLocalStorage helpers must call the patched method.
        # (Not in the Node dialect: Node's own internals call it too.)
        self.patched = (self.extended and not self.node and
                        rng.random() < 0.1)
        self.var_defaults = [rng.random() < 0.5 for _ in range(self.n_var)]
        self.K = []  # kinds of captured callables, by index
        # While generating the body of a captured function: it must not call
        # captured functions (it could end up calling itself).
        self.capturing = 0
        self.body = self.block(Ctx(), 4, 10)

    # --- small pieces ------------------------------------------------------

    def label(self, prefix):
        self.n += 1
        return "%s%d" % (prefix, self.n)

    def value(self):
        r = self.rng.random()
        if r < 0.06:
            return "undefined"
        if r < 0.1:
            return str(self.rng.randint(0, 9))
        return "'%s'" % self.label("v")

    def probe(self, extra=None):
        if extra is None:
            return "P('%s');" % self.label("p")
        return "P('%s', %s);" % (self.label("p"), extra)

    def error(self):
        return "new Error('%s')" % self.label("t")

    def als(self):
        return "S[%d]" % self.rng.randrange(self.n_als)

    def chance(self, p):
        return self.rng.random() < p

    def new_block(self, stmts):
        b = Block(stmts)
        self.blocks.append(b)
        return b

    def catch(self, code):
        """try { code } catch (e) { P(label, e); }"""
        return J("try {\n", Code(lambda m: indent(R(code, m))),
                 "\n} catch (e) {\n  P('%s', e);\n}" % self.label("c"))

    # --- blocks -------------------------------------------------------------

    def block(self, ctx, lo=1, hi=4, throws=False, tail=None):
        """A block of statements; `throws` ends it with a throw (directly or
        from a nested callback); `tail` is appended last (e.g. a return)."""
        stmts = []
        if self.budget > 0 and ctx.depth <= MAX_DEPTH:
            count = self.rng.randint(lo, hi)
        else:
            count = min(lo, 1)
        for i in range(count):
            if i >= min(lo, 1) and self.budget <= 0:
                break
            stmt, awaited = self.statement(ctx)
            stmts.append(stmt)
            if awaited and not ctx.keep_no_leak and ctx.no_leak:
                # The rest runs in an await continuation: the frame is reset
                # after it, so enterWith cannot reach another job.
                ctx = ctx.child(no_leak=False, depth=ctx.depth)
            if awaited and ctx.in_scope:
                # ... and outside any synchronous scope of its caller.
                ctx = ctx.child(in_scope=False, depth=ctx.depth)
        if throws:
            stmts.append(self.throwing(ctx))
        if tail is not None:
            stmts.append(tail)
        return self.new_block(stmts)

    def throwing(self, ctx):
        if ctx.depth >= MAX_DEPTH or self.budget <= 0 or self.chance(0.6):
            return "throw %s;" % self.error()
        # A nested scope whose callback throws, not caught here.
        self.budget -= 1
        return J(self.scope_call(ctx, lambda: self.block(
            ctx.child(no_leak=False, is_async=False, in_scope=True), 0, 2,
            throws=True), False), ";")

    # --- statements -----------------------------------------------------------

    def statement(self, ctx):
        """Returns (code, awaited)."""
        self.budget -= 1
        rng = self.rng
        nested = 1 if ctx.depth < MAX_DEPTH else 0
        choices = [
            ("probe", 6),
            ("scope", 7 * nested),
            ("enterWith", 0 if not self.may_enter_with(ctx) else 3),
            ("disable", 0 if self.node else 0.5),
            ("capture", 2),
            ("invoke", 2 if self.K and not self.capturing else 0),
            ("microtask", 3 * nested),
            ("macrotask", 3 * nested),
            ("resource", 1),
            ("invalid", 0.5),
            # Not with hooks: an overflow inside a hook callback is a fatal
            # hook error (as in Node.js), and where the stack runs out
            # depends on frame sizes.
            ("overflow", 0.3 if self.extended and not self.hooked else 0),
            ("consume", 5 * nested),
            ("generator", 1 * nested),
            ("await", 10 if ctx.is_async else 0),
            ("hook", 1 if self.hooked else 0),
        ]
        if self.budget <= 0:
            choices = [("probe", 1),
                       ("enterWith", 0.3 if self.may_enter_with(ctx) else 0),
                       ("await", 1 if ctx.is_async else 0)]
        kind = weighted(rng, choices)
        return getattr(self, "st_" + kind)(ctx), kind == "await"

    def may_enter_with(self, ctx):
        if ctx.no_leak and not (ctx.microtask_top and
                                self.enter_with_anywhere):
            return False
        return not (self.node and ctx.in_scope)

    def st_probe(self, ctx):
        return self.probe()

    def st_enterWith(self, ctx):
        return "%s.enterWith(%s);" % (self.als(), self.value())

    def st_disable(self, ctx):
        return "%s.disable();" % self.als()

    def st_hook(self, ctx):
        return "$.hook.%s();" % self.rng.choice(["enable", "disable"])

    def st_scope(self, ctx):
        throws = self.chance(0.2)
        returns = not throws and self.chance(0.2)
        tail = "return %s;" % self.value() if returns else None
        call = self.scope_call(ctx, lambda: self.block(
            ctx.child(no_leak=False, is_async=False, in_scope=True), 1, 4,
            throws=throws, tail=tail), False)
        if returns:
            stmt = J("P('%s', " % self.label("r"), call, ");")
        else:
            stmt = J(call, ";")
        return self.catch(stmt) if throws else stmt

    def scope_call(self, ctx, make_body, is_async):
        """An expression that calls a function with body make_body() inside a
        scope: run, exit, Variable.run, Snapshot, AsyncResource, bind."""
        rng = self.rng
        kinds = ["run", "run", "run", "runArgs", "exit", "resource", "bind",
                 "alsBind", "alsSnapshot"]
        if self.extended:
            kinds += ["traced"]
        if not self.node:
            kinds += ["snapshot", "wrap"]
        if self.n_var:
            kinds += ["var", "var"]
        if self.K and not self.capturing:
            kinds += ["k"]
        kind = rng.choice(kinds)
        k = rng.randrange(len(self.K)) if kind == "k" else None
        body = make_body()
        fn = J("async " if is_async else "", "() => ", body.braces())
        if kind == "run":
            return J("%s.run(%s, " % (self.als(), self.value()), fn, ")")
        if kind == "runArgs":
            label = self.label("p")
            fn = J("async " if is_async else "", "(x, y) => {\n",
                   "  P('%s', [x, y]);\n" % label,
                   Code(lambda m: indent(body.render(m))), "\n}")
            return J("%s.run(%s, " % (self.als(), self.value()), fn,
                     ", %s, %s)" % (self.value(), self.value()))
        if kind == "exit":
            return J("%s.exit(" % self.als(), fn, ")")
        if kind == "var":
            return J("V[%d].run(%s, " % (rng.randrange(self.n_var),
                                         self.value()), fn, ")")
        if kind == "snapshot":
            return J("new AsyncContext.Snapshot().run(", fn, ")")
        if kind == "wrap":
            return J("AsyncContext.Snapshot.wrap(", fn, ")()")
        if kind == "resource":
            return J("new AsyncResource('%s'%s).runInAsyncScope(" % (
                self.label("R"), self.resource_options()), fn, ")")
        if kind == "bind":
            return J("AsyncResource.bind(", fn, ")()")
        if kind == "traced":
            how = rng.choice([".bind(", ".runInAsyncScope("])
            return J(self.traced_resource() + how, fn,
                     ")()" if how == ".bind(" else ")")
        if kind == "alsBind":
            return J("AsyncLocalStorage.bind(", fn, ")()")
        if kind == "alsSnapshot":
            return J("AsyncLocalStorage.snapshot()(", fn, ")")
        # A captured callable, if it has been created by now.
        call = self.invoke_k(k, fn)
        otherwise = "Promise.resolve('%s')" % self.label("none") \
            if is_async else "P('%s')" % self.label("none")
        return J("(K[%d] ? " % k, call, " : %s)" % otherwise)

    def invoke_k(self, k, fn):
        kind = self.K[k]
        if kind == "snapshot":
            return J("K[%d].run(" % k, fn, ")")
        if kind == "alsSnapshot":
            return J("K[%d](" % k, fn, ")")
        if kind == "resource":
            return J("K[%d].runInAsyncScope(" % k, fn, ")")
        if kind == "traced":
            if self.rng.random() < 0.5:
                return J("K[%d].runInAsyncScope(" % k, fn, ")")
            return J("K[%d].bind(" % k, fn, ")()")
        # wrap / bind: the captured function calls its argument last.
        return J("K[%d](" % k, fn, ")")

    def resource_options(self):
        r = self.rng.random()
        if r < 0.7:
            return ""
        if r < 0.8:
            return ", {requireManualDestroy: true}"
        trigger = self.rng.choice(["-1", "0", "1",
                                   "asyncHooks.executionAsyncId()"])
        return ", {triggerAsyncId: %s}" % trigger

    def st_capture(self, ctx):
        rng = self.rng
        k = len(self.K)
        kind = rng.choice(["alsSnapshot", "resource", "bind", "bind"] +
                          (["traced"] if self.extended else []) +
                          ([] if self.node else ["snapshot", "wrap"]))
        self.K.append(kind)
        if kind == "traced":
            return "K[%d] = %s;" % (k, self.traced_resource())
        if kind == "snapshot":
            return "K[%d] = new AsyncContext.Snapshot();" % k
        if kind == "alsSnapshot":
            return "K[%d] = AsyncLocalStorage.snapshot();" % k
        if kind == "resource":
            return "K[%d] = new AsyncResource('%s'%s);" % (
                k, self.label("R"), self.resource_options())
        self.capturing += 1
        body = self.block(ctx.child(no_leak=False, is_async=False,
                                    in_scope=True), 1, 3,
                          tail="return f ? f() : undefined;")
        self.capturing -= 1
        fn = J("(f) => ", body.braces())
        if kind == "wrap":
            return J("K[%d] = AsyncContext.Snapshot.wrap(" % k, fn, ");")
        how = rng.choice(["AsyncResource.bind(", "AsyncLocalStorage.bind(",
                          "new AsyncResource('%s').bind(" % self.label("R")])
        return J("K[%d] = %s" % (k, how), fn, ");")

    def st_invoke(self, ctx):
        throws = self.chance(0.15)
        body = self.block(ctx.child(no_leak=False, is_async=False,
                                    in_scope=True), 1, 3, throws=throws)
        k = self.rng.randrange(len(self.K))
        fn = J("() => ", body.braces())
        stmt = J("if (K[%d]) " % k, self.invoke_k(k, fn), ";")
        return self.catch(stmt) if throws else stmt

    def st_microtask(self, ctx):
        body = self.block(ctx.child(no_leak=True, is_async=False,
                                    keep_no_leak=False, in_scope=False,
                                    microtask_top=True), 1, 4)
        return J("queueMicrotask(() => ", body.braces(), ");")

    def st_macrotask(self, ctx):
        body = self.block(ctx.child(no_leak=False, is_async=False,
                                    in_scope=False), 1, 4)
        call = J("%s(() => " % self.macro, body.braces(), ")")
        if self.chance(0.1):
            clear = "clearTimeout" if self.macro == "setTimeout" else \
                "clearImmediate"
            return J("%s(" % clear, call, ");")
        return J(call, ";")

    def st_overflow(self, ctx):
        """A stack overflow, caught: while creating promises, inside run,
        or through nested runInAsyncScope calls. Nothing may be left behind
        (frame, execution stack), and the error is an ordinary RangeError."""
        label = self.label("o")
        kinds = ["promise", "promise", "run"]
        if not self.node and not self.patched:
            # Node.js 24 aborts ("async hook stack has become corrupted");
            # a patched runInAsyncScope would print a probe per level.
            kinds.append("resource")
        kind = self.rng.choice(kinds)
        if kind == "promise":
            body = "(function f() {\n    Promise.resolve();\n    f();\n  })();"
        elif kind == "run":
            body = ("%s.run(%s, () => (function f() {\n    Promise.resolve();"
                    "\n    f();\n  })());" % (self.als(), self.value()))
        else:
            body = ("const r = new AsyncResource('%s');\n"
                    "  const g = () => r.runInAsyncScope(g);\n  g();"
                    % self.label("R"))
        return ("try {\n  %s\n} catch (e) {\n  P('%s', e.name);\n}" %
                (body, label))

    def traced_resource(self):
        """A resource whose class overrides runInAsyncScope, as APM tools
        do: bind() must call the override."""
        return ("new (class extends AsyncResource {\n"
                "  runInAsyncScope(fn, thisArg, ...args) {\n"
                "    P('%s');\n"
                "    return super.runInAsyncScope(fn, thisArg, ...args);\n"
                "  }\n})('%s')" % (self.label("o"), self.label("R")))

    def st_resource(self, ctx):
        if self.hooked or self.node:
            return self.probe()
        return ("{\n  const r = new AsyncResource('%s'%s);\n"
                "  P('%s', $.id(r.asyncId()) + ' ' + $.id(r.triggerAsyncId()));"
                "\n}" % (self.label("R"), self.resource_options(),
                         self.label("p")))

    def st_invalid(self, ctx):
        rng = self.rng
        bad = rng.choice(["5", "null", "'f'", "{}"])
        calls = ["queueMicrotask(%s)" % bad,
                 "new AsyncResource(%s)" % bad,
                 "new AsyncResource('x', {triggerAsyncId: -2})"]
        if not self.node:
            calls += ["%s.run(%s, %s)" % (self.als(), self.value(), bad),
                      "%s.exit(%s)" % (self.als(), bad),
                      "new AsyncContext.Snapshot().run(%s)" % bad,
                      "AsyncContext.Snapshot.wrap(%s)" % bad]
        if self.n_var:
            calls.append("V[0].run(%s, %s)" % (self.value(), bad))
        return self.catch(rng.choice(calls) + ";")

    # --- promises -----------------------------------------------------------

    def then_call(self, promise, on_fulfilled, on_rejected):
        """promise.then(f, r) whose reactions the model runs in the frame of
        this call."""
        args_real = J(on_fulfilled, ", ", on_rejected) \
            if on_rejected is not None else on_fulfilled
        args_model = J(on_fulfilled, ", ", on_rejected) \
            if on_rejected is not None else J(on_fulfilled, ", undefined")
        return Alt(J("(", promise, ").then(", args_real, ")"),
                   J("M.then(", promise, ", ", args_model, ")"))

    def catch_call(self, promise, on_rejected):
        return Alt(J("(", promise, ").catch(", on_rejected, ")"),
                   J("M.then(", promise, ", undefined, ", on_rejected, ")"))

    def finally_call(self, promise, on_finally):
        return Alt(J("(", promise, ").finally(", on_finally, ")"),
                   J("M.fin(", promise, ", ", on_finally, ")"))

    def st_generator(self, ctx):
        """A generator resumes in the frame of its caller
        (docs/semantics.md, generators)."""
        # Either part may run at the top of a microtask: no enterWith.
        first = self.block(ctx.child(is_async=False, no_leak=True), 1, 2)
        second = self.block(ctx.child(is_async=False, no_leak=True), 1, 2)
        fn = J("(function* () {\n",
               Code(lambda m: indent(first.render(m))),
               "\n  yield;\n",
               Code(lambda m: indent(second.render(m))), "\n})()")
        r = self.rng.random()
        if r < 0.5:
            resume = J(self.scope_call(ctx, lambda: self.new_block(
                ["it.next();"]), False), ";")
        elif r < 0.8:
            resume = "%s(() => it.next());" % self.macro
        else:
            resume = "queueMicrotask(() => it.next());"
        return J("{\n  const it = ", Code(lambda m: indent(R(fn, m)).lstrip()),
                 ";\n  it.next();\n",
                 Code(lambda m: indent(R(resume, m))), "\n}")

    def st_consume(self, ctx):
        """A promise, consumed without await: then(f, r)."""
        promise = self.promise(ctx)
        label = self.label("f")
        body = self.block(ctx.child(no_leak=False, is_async=False), 0, 3)
        on_ok = J("(v) => {\n  P('%s', v);\n" % label,
                  Code(lambda m: indent(body.render(m))), "\n}")
        on_err = "(e) => {\n  P('%s', e);\n}" % self.label("c")
        return J(self.then_call(promise, on_ok, on_err), ";")

    def st_await(self, ctx):
        rng = self.rng
        r = rng.random()
        if r < 0.45:
            operand = self.promise(ctx)
        elif r < 0.8:
            operand = self.thenable(ctx)
        elif r < 0.9:
            operand = self.value()
        else:
            operand = "null"
        var = self.label("a")
        real = J("%s = await " % var, operand, ";")
        model = J("{\n  const $a = M.awaiter();\n  try {\n    %s = await $a.on("
                  % var, operand,
                  ");\n  } finally {\n    $a.resume();\n  }\n}")
        stmt = J("let %s;\n" % var, Alt(real, model),
                 "\nP('%s', %s);" % (self.label("p"), var))
        return self.catch(J("{\n", Code(lambda m: indent(R(stmt, m))),
                            "\n}"))

    def promise(self, ctx):
        """An expression whose value is a native promise."""
        rng = self.rng
        deep = ctx.depth >= MAX_DEPTH - 1 or self.budget <= 0
        choices = [
            ("iife", 0 if deep else 6),
            ("scoped", 0 if deep else 5),
            ("resolved", 1.5),
            ("rejected", 1),
            ("timer", 0 if deep else 3),
            ("microtask", 0 if deep else 2),
            ("executor", 0 if deep else 2),
            ("then", 0 if deep else 3),
            ("all", 0 if deep else 2),
        ]
        kind = weighted(rng, choices)
        self.budget -= 1
        return getattr(self, "pr_" + kind)(ctx)

    def pr_resolved(self, ctx):
        return "Promise.resolve(%s)" % self.value()

    def pr_rejected(self, ctx):
        return "Promise.reject(%s)" % self.error()

    def async_body(self, ctx, returns_allowed=True):
        """The body of an async function: statements with await, ending with
        a throw, a return of a value or a thenable, or nothing."""
        r = self.rng.random() if returns_allowed else 1
        # Until its first await, an async function runs as part of its
        # caller: it inherits the caller's restriction.
        inner = ctx.child(is_async=True, keep_no_leak=False)
        if r < 0.15:
            return self.block(inner, 1, 5, throws=True)
        if r < 0.3:
            # return thenable: the whole body keeps its creation frame unless
            # ambiguous thenables are allowed.
            if not self.ambiguous:
                inner = ctx.child(is_async=True, no_leak=True,
                                  keep_no_leak=True)
            thenable = self.thenable(inner)
            tail = Alt(J("return ", thenable, ";"),
                       J("return M.ret($c, ", thenable, ");"))
            return self.block(inner, 1, 5, tail=tail)
        if r < 0.5:
            return self.block(inner, 1, 5, tail="return %s;" % self.value())
        return self.block(inner, 1, 5)

    def pr_iife(self, ctx):
        body = self.async_body(ctx)
        prologue = Alt("", "const $c = M.save();\n")
        return J("(async () => {\n",
                 Code(lambda m: indent(R(prologue, m) + body.render(m))),
                 "\n})()")

    def pr_scoped(self, ctx):
        def make_body():
            body = self.async_body(ctx.child(no_leak=False, in_scope=True))
            return self.new_block([Alt("", "const $c = M.save();"),
                                   body.braces()])
        return self.scope_call(ctx, make_body, True)

    def resolution(self, ctx):
        """What a resolve function is called with, or a reject/throw:
        returns (statement code)."""
        rng = self.rng
        r = rng.random()
        if r < 0.55 or ctx.depth >= MAX_DEPTH:
            return "res(%s);" % self.value()
        if r < 0.7:
            return "rej(%s);" % self.error()
        if r < 0.85:
            return J("res(", self.promise(ctx.child()), ");")
        thenable = self.thenable(ctx.child(no_leak=True))
        stmt = J("res(", thenable, ");")
        if self.ambiguous and self.chance(0.5):
            # Resolve in another frame than the promise's creation frame.
            return J("%s.run(%s, () => " % (self.als(), self.value()),
                     "{\n", Code(lambda m: indent(R(stmt, m))), "\n});")
        return stmt

    def executor(self, ctx, body_stmts):
        """new Promise((res, rej) => {...})."""
        body = self.new_block(body_stmts)
        fn = J("(res, rej) => ", body.braces())
        return Alt(J("new Promise(", fn, ")"), J("M.newPromise(", fn, ")"))

    def pr_timer(self, ctx):
        inner = ctx.child(no_leak=not self.ambiguous, is_async=False)
        block = self.block(inner, 0, 3)
        block.stmts.append(self.resolution(inner))
        call = J("%s(() => " % self.macro, block.braces(), ");")
        return self.executor(ctx, [call])

    def pr_microtask(self, ctx):
        inner = ctx.child(no_leak=True, is_async=False)
        block = self.block(inner, 0, 3)
        block.stmts.append(self.resolution(inner))
        return self.executor(ctx, [J("queueMicrotask(() => ",
                                     block.braces(), ");")])

    def pr_executor(self, ctx):
        inner = ctx.child(no_leak=True, is_async=False)
        throws = self.chance(0.1)
        block = self.block(inner, 0, 3, throws=throws)
        if not throws:
            block.stmts.append(self.resolution(inner))
        return self.executor(ctx, block.stmts)

    def pr_then(self, ctx):
        rng = self.rng
        promise = self.promise(ctx.child())
        r = rng.random()
        returns_thenable = r < 0.2
        inner = ctx.child(is_async=False,
                          no_leak=returns_thenable and not self.ambiguous)
        if returns_thenable:
            tail = J("return ", self.thenable(inner.child(no_leak=True)), ";")
        elif r < 0.35:
            tail = J("return ", self.promise(inner), ";")
        elif r < 0.5:
            tail = "throw %s;" % self.error()
        else:
            tail = "return %s;" % self.value()
        body = self.block(inner, 0, 3, tail=tail)
        on_ok = J("(v) => ", body.braces())
        if r >= 0.5 and rng.random() < 0.25:
            # catch / finally instead of then.
            if rng.random() < 0.5:
                return self.catch_call(promise, J("(e) => ", body.braces()))
            inner = ctx.child(is_async=False)
            body = self.block(inner, 1, 3, throws=rng.random() < 0.2)
            return self.finally_call(promise, J("() => ", body.braces()))
        on_err = None
        if rng.random() < 0.4:
            on_err = "(e) => {\n  P('%s', e);\n  return '%s';\n}" % (
                self.label("c"), self.label("v"))
        return self.then_call(promise, on_ok, on_err)

    def pr_all(self, ctx):
        rng = self.rng
        items = []
        for _ in range(rng.randint(1, 4)):
            r = rng.random()
            if r < 0.5:
                items.append(self.promise(ctx.child()))
            elif r < 0.85:
                items.append(self.thenable(ctx.child()))
            else:
                items.append(self.value())
        combinator = rng.choice(["all", "all", "allSettled", "race"])
        array = J("[\n", Code(lambda m: indent(",\n".join(
            R(i, m) for i in items))), "\n]")
        return Alt(J("Promise.%s(" % combinator, array, ")"),
                   J("Promise.%s(M.each(" % combinator, array, "))"))

    # --- thenables ------------------------------------------------------------

    def thenable(self, ctx):
        """{then(res, rej) {...}}: its then() runs in a thenable job."""
        rng = self.rng
        inner = ctx.child(no_leak=True, is_async=False)
        block = self.block(inner, 0, 3)
        r = rng.random()
        if r < 0.4 or ctx.depth >= MAX_DEPTH:
            block.stmts.append("res(%s);" % self.value())
        elif r < 0.5:
            block.stmts.append("rej(%s);" % self.error())
        elif r < 0.6:
            block.stmts.append("throw %s;" % self.error())
        elif r < 0.75:
            later = self.block(inner.child(), 0, 2)
            later.stmts.append(self.resolution(inner.child()))
            block.stmts.append(J("%s(() => " % self.macro, later.braces(),
                                 ");"))
        elif r < 0.85:
            later = self.block(inner.child(), 0, 2)
            later.stmts.append(self.resolution(inner.child()))
            block.stmts.append(J("queueMicrotask(() => ", later.braces(),
                                 ");"))
        elif r < 0.98:
            block.stmts.append(self.resolution(inner))
        # else: never settles
        self.budget -= 1
        return Alt(J("{then(res, rej) ", block.braces(), "}"),
                   J("M.thenable((res, rej) => ", block.braces(), ")"))

    # --- the program ------------------------------------------------------------

    def render(self, model):
        lines = [
            "'use strict';",
            "const {AsyncLocalStorage, AsyncResource, AsyncContext, "
            "asyncHooks, queueMicrotask, setTimeout, setImmediate, "
            "clearTimeout, clearImmediate, M, K, P} = $;",
        ]
        if self.timer_calls is not None:
            lines.append(render_timer_hook(self.timer_calls, self.hook_kinds))
        elif self.hooked:
            callbacks = ", ".join("%s() {}" % k for k in self.hook_kinds)
            lines.append("$.hook = asyncHooks.createHook({%s}).enable();" %
                         callbacks)
        if self.patched:
            lines.append(
                "const $original = AsyncResource.prototype.runInAsyncScope;\n"
                "$.cleanup.push(() => {\n"
                "  AsyncResource.prototype.runInAsyncScope = $original;\n"
                "});\n"
                "AsyncResource.prototype.runInAsyncScope = "
                "function(fn, thisArg, ...args) {\n"
                "  P('patched');\n"
                "  return $original.call(this, fn, thisArg, ...args);\n"
                "};")
        stores = []
        for i, has_default in enumerate(self.defaults):
            stores.append("new AsyncLocalStorage(%s)" % (
                "{defaultValue: 'd%d'}" % i if has_default else ""))
        lines.append("const S = $.S = [%s];" % ", ".join(stores))
        variables = []
        for j, has_default in enumerate(self.var_defaults):
            variables.append("new AsyncContext.Variable({name: 'x%d'%s})" % (
                j, ", defaultValue: 'dv%d'" % j if has_default else ""))
        lines.append("const V = $.V = [%s];" % ", ".join(variables))
        lines.append("P('start');")
        lines.append(self.body.render(model))
        return ("FUZZ_PROGRAMS.push({seed: %d, hooked: %s, ids: %s, "
                "main($) {\n%s\n}});"
                % (self.seed, "true" if self.hooked else "false",
                   "false" if self.node else "true",
                   indent("\n".join(lines))))


# Hook-driven timer calls (the hostile mode, issue 23): the hook of a
# program calls the methods of the program's timers (refresh, ref, unref,
# hasRef, clearTimeout / clearImmediate) and makes, refreshes and clears
# timers of its own (nested timers) from its init, before, after and
# destroy callbacks, while the shell is creating, running or releasing the
# timer it reports. Only calls that change nothing a program can observe in
# Node.js are made, so the model (whose hooks never run) needs nothing: a
# refresh() during the timer's own init (it is armed from now anyway), unref
# then ref, clearTimeout of a timer that already ran (after, destroy), and
# timers of the hook's own whose callbacks do nothing. What they check is
# that the shell still runs every timer of the program exactly once, in
# order, and neither crashes nor hangs (docs/semantics.md, the shell's
# timers; test/js/shell has the per-call tests).
#
# The calls, by hook: a list of statements per callback, over `t` (the
# program's Timeout or Immediate the callback is about, or undefined) and
# `$T` (the hook's state: its own timers).
HOOK_TIMER_CALLS = {
    "init": [
        "if (t.refresh) t.refresh();",
        "t.unref(); t.ref();",
        "$T.n += t.hasRef() ? 1 : 0;",
        "clearTimeout($T.nested());",
        "$T.kept.push($T.nested());",
        "$T.nested().unref();",
        "if ($T.kept.length) $T.kept[0].refresh();",
    ],
    "before": [
        "t.unref(); t.ref();",
        "$T.n += t.hasRef() ? 1 : 0;",
        "if ($T.kept.length) clearTimeout($T.kept.shift());",
        "$T.kept.push($T.nested());",
        "if ($T.kept.length) $T.kept[0].refresh();",
        "$T.nested();",
    ],
    "after": [
        "$T.clear(t);",
        "t.unref(); t.ref();",
        "$T.n += t.hasRef() ? 1 : 0;",
        "if ($T.kept.length) clearTimeout($T.kept.pop());",
        "$T.kept.push($T.nested());",
        "if ($T.kept.length) $T.kept[0].refresh();",
    ],
    "destroy": [
        "$T.clear(t);",
        "t.unref();",
        "$T.n += t.hasRef() ? 1 : 0;",
        "if ($T.kept.length) clearTimeout($T.kept.shift());",
        "$T.kept.push($T.nested());",
        "if ($T.kept.length) $T.kept[0].refresh();",
    ],
}


def hook_timer_calls(rng):
    """Per hook callback, the timer calls it makes (at least one callback
    makes some)."""
    calls = {}
    while not any(calls.values()):
        for kind, choices in HOOK_TIMER_CALLS.items():
            calls[kind] = ([rng.choice(choices)
                            for _ in range(rng.randint(1, 3))]
                           if rng.random() < 0.6 else [])
    return calls


def render_timer_hook(calls, other_kinds):
    """The hook of a program with hook-driven timer calls: `init` keeps the
    program's timers by async id (not the hook's own, made while `busy`, nor
    one of them re-armed by refresh() under a new id, `$fuzzOwn`: a hook that
    refreshed its own timers from their hooks would never end, in Node.js
    too); every callback finds its timer there. No global constructor is
    used (the hostile realm replaces them, and reports their use)."""
    lines = [
        "const $T = {n: 0, busy: false, timers: {__proto__: null}, kept: [],",
        "  nested() {",
        "    this.busy = true;",
        "    try {",
        "      const t = setTimeout(() => {}, 1);",
        "      t.$fuzzOwn = true;",
        "      return t;",
        "    } finally {",
        "      this.busy = false;",
        "    }",
        "  },",
        "  clear(t) {",
        "    if (t.refresh) clearTimeout(t); else clearImmediate(t);",
        "  },",
        "};",
        "$.hook = asyncHooks.createHook({",
        "  init(id, type, trigger, t) {",
        "    if ($T.busy || (type !== 'Timeout' && type !== 'Immediate') ||",
        "        t.$fuzzOwn) return;",
        "    $T.timers[id] = t;",
    ]
    lines += ["    " + c for c in calls["init"]]
    lines.append("  },")
    for kind in ("before", "after", "destroy"):
        lines.append("  %s(id) {" % kind)
        lines.append("    const t = $T.timers[id];")
        if kind == "destroy":
            lines.append("    delete $T.timers[id];")
        lines.append("    if (t === undefined) return;")
        lines += ["    " + c for c in calls[kind]]
        lines.append("  },")
    if "promiseResolve" in other_kinds:
        lines.append("  promiseResolve() {},")
    lines.append("}).enable();")
    return "\n".join(lines)


def weighted(rng, choices):
    total = sum(w for _, w in choices)
    x = rng.random() * total
    for name, w in choices:
        if w <= 0:
            continue
        x -= w
        if x < 0:
            return name
    return [n for n, w in choices if w > 0][-1]


PRELUDE = "globalThis.FUZZ_PROGRAMS = globalThis.FUZZ_PROGRAMS || [];\n"


def options_js(thenable_rule):
    return "globalThis.FUZZ_OPTIONS = {thenableRule: '%s'};\n" % thenable_rule
