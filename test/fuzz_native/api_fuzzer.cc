// Copyright 2026 the asyncctx authors. All rights reserved.
//
// libFuzzer target: arbitrary bytes as calls to every installed function.
//
// One isolate, runtime and context live for the whole run. Each input is
// handed to a small interpreter written in JavaScript (kInterpreter below),
// which reads it as a sequence of operations: construct or call any of
// AsyncLocalStorage, AsyncResource, AsyncContext.Variable/Snapshot,
// queueMicrotask and asyncHooks.* (with a receiver and arguments built from
// the bytes: numbers, strings, Symbols, BigInts, plain, frozen and
// null-prototype objects, Proxies with throwing traps, revoked Proxies,
// getters and conversions that throw, functions that throw, functions that
// run a nested part of the input (so hooks, thenables, microtasks and
// callbacks call the API again), thenables, async functions, undefined and
// null), plus host timers (C++ AsyncResource + CallbackScope) and C++
// ContextKey scopes. Microtasks, host timers and platform tasks run after the
// top-level part.
//
// A hook that throws reaches the runtime's hook-error handler, which here
// terminates the isolate's JavaScript (Node would exit); the host cancels the
// termination at the end of each macrotask. So terminations land at arbitrary
// points too.
//
// Exceptions are expected; crashes, sanitizer reports and broken invariants
// are bugs. After every input and every host macrotask: the execution stack
// is empty, the ids are the top-level ones, and no store or variable the
// input created has a value in the root frame. A broken invariant aborts with
// a message.
//
// Build and run (test/fuzz_native/corpus holds seeds and the inputs of fixed
// bugs; new inputs go to the first folder):
//   test/fuzz_native/build.sh
//   out/fuzz_native/api_fuzzer -max_total_time=600 out/fuzz_native/corpus
//       test/fuzz_native/corpus        (one command line)
//   FUZZ_TRACE=1 out/fuzz_native/api_fuzzer CRASH_FILE   # prints each call
// `tools/test --asan` runs 20,000 inputs from a fixed seed.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "asyncctx/asyncctx.h"
#include "libplatform/libplatform.h"
#include "v8-array-buffer.h"
#include "v8-container.h"
#include "v8-context.h"
#include "v8-exception.h"
#include "v8-external.h"
#include "v8-function.h"
#include "v8-initialization.h"
#include "v8-isolate.h"
#include "v8-primitive.h"
#include "v8-script.h"
#include "v8-typed-array.h"

namespace {

const char kInterpreter[] = R"JS(
(function(host) {
  'use strict';
  const {setTimer, keyScope} = host;
  const SENTINEL = new Error('thrown by the input');
  const thrower = function thrower() { throw SENTINEL; };
  const MAX_DEPTH = 24;

  let bytes = new Uint8Array(0);
  let pos = 0;
  let end = 0;
  let budget = 0;
  let depth = 0;
  let pool = [];

  function byte() { return pos < end ? bytes[pos++] : 0; }
  function pick(list) {
    return list.length === 0 ? undefined : list[byte() % list.length];
  }

  function revoked(target) {
    const {proxy, revoke} = Proxy.revocable(target, {});
    revoke();
    return proxy;
  }

  const TRAPS = ['get', 'set', 'has', 'ownKeys', 'getOwnPropertyDescriptor',
                 'defineProperty', 'deleteProperty', 'getPrototypeOf',
                 'setPrototypeOf', 'isExtensible', 'preventExtensions',
                 'apply', 'construct'];
  function handler() {
    const h = {};
    const mask = byte() | (byte() << 8);
    for (let i = 0; i < TRAPS.length; i++) {
      if (mask & (1 << i)) h[TRAPS[i]] = (mask & 0x4000) ? thrower : program();
    }
    return h;
  }

  const KEYS = ['defaultValue', 'name', 'triggerAsyncId',
                'requireManualDestroy', 'init', 'before', 'after', 'destroy',
                'promiseResolve', 'then'];
  function options() {
    const o = {};
    const mask = byte() | (byte() << 8);
    for (let i = 0; i < KEYS.length; i++) {
      if (!(mask & (1 << i))) continue;
      if (mask & 0x8000) {
        Object.defineProperty(o, KEYS[i], {get: thrower, enumerable: true});
      } else {
        o[KEYS[i]] = value();
      }
    }
    return (mask & 0x4000) ? Object.freeze(o) : o;
  }

  // A function that runs the next `length` bytes as a nested program.
  function program() {
    const length = byte() % 48;
    const start = pos;
    pos = Math.min(end, pos + length);
    const stop = pos;
    return function nested(...args) {
      if (depth >= MAX_DEPTH) return args[0];
      const savedPos = pos;
      const savedEnd = end;
      pos = start;
      end = stop;
      depth++;
      try {
        let result;
        while (pos < end && budget > 0) result = step();
        return result;
      } finally {
        depth--;
        pos = savedPos;
        end = savedEnd;
      }
    };
  }

  function value() {
    if (depth >= MAX_DEPTH) return byte();
    depth++;
    try {
      switch (byte() % 30) {
        case 0: return undefined;
        case 1: return null;
        case 2: return byte() - 128;
        case 3: return [NaN, -0, Infinity, -Infinity, 2 ** 53, -1, -2, 1.5,
                        2 ** 31, Number.MAX_VALUE][byte() % 10];
        case 4: return 'x'.repeat(byte() % 40);
        case 5: return ['', 'PROMISE', 'Microtask', 'Timeout', '__proto__',
                        'constructor', 'then'][byte() % 7];
        case 6: return Symbol('s' + byte());
        case 7: return BigInt(byte());
        case 8: return {};
        case 9: return Object.create(null);
        case 10: return options();
        case 11: return new Proxy({}, handler());
        case 12: return new Proxy(program(), handler());
        case 13: return revoked({});
        case 14: return revoked(function() {});
        case 15: return thrower;
        case 16: return program();
        case 17: return program();
        case 18: return pick(pool);
        case 19: return pick(pool);
        case 20: {
          const o = {};
          o.valueOf = o.toString = o[Symbol.toPrimitive] = thrower;
          return o;
        }
        case 21: {
          const fn = program();
          return {then: fn};
        }
        case 22: {
          const fn = program();
          // Charged to the budget: as an init hook, an async function makes
          // promises that call it again, forever (as in Node).
          return function(...args) {
            if (budget <= 0) return undefined;
            budget--;
            return (async () => {
              await null;
              return fn(...args);
            })();
          };
        }
        case 23: return Promise.resolve(byte());
        case 24: return Promise.reject(SENTINEL);
        case 25: return [value(), value()];
        case 26: return Object.freeze(program());
        case 27: return true;
        case 28: return new AsyncLocalStorage();
        default: return byte();
      }
    } finally {
      depth--;
    }
  }

  const getter = (C, name) => Object.getOwnPropertyDescriptor(
      C.prototype, name).get;
  const AsyncHook = asyncHooks.createHook({}).constructor;
  const {Variable, Snapshot} = AsyncContext;
  // [function, class its receiver should be, construct?]
  const API = [
    [AsyncLocalStorage, null, true],
    [AsyncLocalStorage.prototype.run, AsyncLocalStorage],
    [AsyncLocalStorage.prototype.exit, AsyncLocalStorage],
    [AsyncLocalStorage.prototype.enterWith, AsyncLocalStorage],
    [AsyncLocalStorage.prototype.getStore, AsyncLocalStorage],
    [AsyncLocalStorage.prototype.disable, AsyncLocalStorage],
    [getter(AsyncLocalStorage, 'name'), AsyncLocalStorage],
    [AsyncLocalStorage.bind, null],
    [AsyncLocalStorage.snapshot, null],
    [AsyncResource, null, true],
    [AsyncResource.prototype.runInAsyncScope, AsyncResource],
    [AsyncResource.prototype.emitDestroy, AsyncResource],
    [AsyncResource.prototype.asyncId, AsyncResource],
    [AsyncResource.prototype.triggerAsyncId, AsyncResource],
    [AsyncResource.prototype.bind, AsyncResource],
    [AsyncResource.bind, null],
    [Variable, null, true],
    [Variable.prototype.run, Variable],
    [Variable.prototype.get, Variable],
    [getter(Variable, 'name'), Variable],
    [Snapshot, null, true],
    [Snapshot.prototype.run, Snapshot],
    [Snapshot.wrap, null],
    [queueMicrotask, null],
    [asyncHooks.createHook, null],
    [AsyncHook.prototype.enable, AsyncHook],
    [AsyncHook.prototype.disable, AsyncHook],
    [asyncHooks.executionAsyncId, null],
    [asyncHooks.triggerAsyncId, null],
    [asyncHooks.executionAsyncResource, null],
    [setTimer, null],
    [keyScope, null],
  ];

  function receiverFor(C) {
    if (C === null || byte() % 8 === 0) return value();
    for (let i = 0, n = byte() % 4; i < pool.length; i++) {
      const candidate = pool[(i + n * 7) % pool.length];
      if (candidate instanceof C) return candidate;
    }
    return keep(C === AsyncHook ? asyncHooks.createHook({}) :
        C === AsyncResource ? new AsyncResource('Receiver') : new C());
  }

  // Every hook an input makes, disabled by cleanup() after it.
  let hooksMade = [];

  function keep(result) {
    if (result instanceof AsyncHook && hooksMade.length < 4096) {
      hooksMade.push(result);
    }
    if ((typeof result === 'object' && result !== null) ||
        typeof result === 'function') {
      if (pool.length < 64) pool.push(result); else pool[byte() % 64] = result;
    }
    return result;
  }

  const trace = host.trace;  // set when FUZZ_TRACE is in the environment
  function describe(v) {
    try {
      if (typeof v === 'function') return 'function ' + (v.name || '?');
      if (typeof v === 'symbol') return 'symbol';
      if (typeof v === 'object' && v !== null) {
        return 'object ' + (Object.getPrototypeOf(v)?.constructor?.name);
      }
      return typeof v === 'string' ? JSON.stringify(v.slice(0, 20)) :
          String(v);
    } catch {
      return 'object (throws)';
    }
  }

  function step() {
    if (budget <= 0) return undefined;
    budget--;
    const op = byte();
    try {
      if (op < 200) {
        const [fn, C, construct] = API[op % API.length];
        const args = [];
        for (let n = byte() % 4; n > 0; n--) args.push(value());
        if (construct) {
          if (trace) trace(`${'  '.repeat(depth)}new ${fn.name}(${args.map(describe)})`);
          return keep(Reflect.construct(fn, args));
        }
        const receiver = receiverFor(C);
        if (trace) {
          trace(`${'  '.repeat(depth)}${describe(receiver)}.${fn.name}(` +
                `${args.map(describe)}) eid=${asyncHooks.executionAsyncId()}`);
        }
        return keep(Reflect.apply(fn, receiver, args));
      }
      if (trace) trace(`${'  '.repeat(depth)}special op ${op % 8}`);
      switch (op % 8) {
        case 0: return keep(Promise.resolve(value()).then(value(), value()));
        case 1: return keep(new Promise(value()));
        case 2: {
          const fn = program();
          return keep((async () => { await value(); return fn(); })());
        }
        case 3: {
          const fn = value();
          return typeof fn === 'function' ? fn(value(), value()) : fn;
        }
        case 4: throw value();
        case 5: return keep(Promise.all([value(), value()]));
        case 6: {
          const target = pick(pool);
          if (target != null) Object.freeze(target);
          return target;
        }
        default: return keep(value());
      }
    } catch (error) {
      return error;
    }
  }

  // Returns the stores and variables this input made, for C++ to check.
  function run(input, maxSteps) {
    bytes = input;
    pos = 0;
    end = input.length;
    budget = maxSteps;
    depth = 0;
    pool = [];
    while (pos < end && budget > 0) step();
    // Only genuine instances (the brand check of a private field rejects
    // Proxies and look-alikes), so that C++'s checks run no user code.
    const stores = [];
    for (const item of pool) {
      try {
        AsyncLocalStorage.prototype.getStore.call(item);
        stores.push(item);
        continue;
      } catch {}
      try {
        Variable.prototype.get.call(item);
        stores.push(item);
      } catch {}
    }
    pool = [];
    return stores;
  }
  // Disables every hook the input made; nothing of it runs again.
  run.cleanup = function cleanup() {
    budget = 0;
    const hooks = hooksMade;
    hooksMade = [];
    for (const hook of hooks) {
      try {
        AsyncHook.prototype.disable.call(hook);
      } catch {
        // Not a real hook (a Proxy of one, or made from its prototype).
      }
    }
  };
  return run;
})
)JS";

struct Fuzzer {
  std::unique_ptr<v8::Platform> platform;
  std::unique_ptr<v8::ArrayBuffer::Allocator> allocator;
  v8::Isolate* isolate = nullptr;
  std::unique_ptr<asyncctx::Runtime> runtime;
  v8::Global<v8::Context> context;
  v8::Global<v8::Function> run;
  std::vector<std::unique_ptr<asyncctx::AsyncResource>> resources;
  std::vector<v8::Global<v8::Function>> timers;
  uint64_t inputs = 0;
  uint64_t hook_errors = 0;
  uint64_t uncaught = 0;
};

Fuzzer* g_fuzzer = nullptr;

[[noreturn]] void Broken(const std::string& what) {
  std::fprintf(stderr, "api_fuzzer: invariant broken: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// setTimer(fn): a host timer (C++ AsyncResource), run after the input.
void SetTimer(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  if (!info[0]->IsFunction() || g_fuzzer->timers.size() >= 64)
    return;
  g_fuzzer->resources.push_back(std::make_unique<asyncctx::AsyncResource>(
      isolate->GetCurrentContext(), "FuzzTimer"));
  g_fuzzer->timers.emplace_back(isolate, info[0].As<v8::Function>());
}

// keyScope(value, fn): calls fn inside a C++ ContextKey::Scope, then reads
// the key back.
void KeyScope(const v8::FunctionCallbackInfo<v8::Value>& info) {
  v8::Isolate* isolate = info.GetIsolate();
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  asyncctx::ContextKey key(context, "fuzz");
  {
    asyncctx::ContextKey::Scope scope(key, context, info[0]);
    if (!key.Get(context).ToLocalChecked()->SameValue(info[0])) {
      Broken("ContextKey::Get inside its scope");
    }
    if (info[1]->IsFunction()) {
      v8::Local<v8::Value> result;
      if (info[1]
              .As<v8::Function>()
              ->Call(context, v8::Undefined(isolate), 0, nullptr)
              .ToLocal(&result)) {
        info.GetReturnValue().Set(result);
      }
    }
  }
  // Only the callback could have changed the frame; the scope restored it.
  if (key.Has(context))
    Broken("ContextKey::Scope did not restore the frame");
}

// Disposes everything at exit, so that LeakSanitizer's exit check sees V8's
// memory freed rather than held by an isolate it cannot scan.
void TearDown() {
  Fuzzer* f = g_fuzzer;
  if (f == nullptr)
    return;
  {
    v8::HandleScope handle_scope(f->isolate);
    f->timers.clear();
    f->resources.clear();
    f->run.Reset();
    f->context.Reset();
    f->runtime.reset();
  }
  f->isolate->Exit();
  v8::platform::NotifyIsolateShutdown(f->platform.get(), f->isolate);
  f->isolate->Dispose();
  v8::V8::Dispose();
  v8::V8::DisposePlatform();
  g_fuzzer = nullptr;
  delete f;
}

void Initialize() {
  auto* f = new Fuzzer();
  g_fuzzer = f;
  std::atexit(TearDown);
  v8::V8::SetFlagsFromString("--expose-gc --stack-size=400");
  f->platform = v8::platform::NewDefaultPlatform();
  v8::V8::InitializePlatform(f->platform.get());
  v8::V8::Initialize();
  f->allocator.reset(v8::ArrayBuffer::Allocator::NewDefaultAllocator());
  v8::Isolate::CreateParams params;
  params.array_buffer_allocator = f->allocator.get();
  f->isolate = v8::Isolate::New(params);
  f->isolate->SetMicrotasksPolicy(v8::MicrotasksPolicy::kExplicit);
  f->isolate->Enter();
  v8::HandleScope handle_scope(f->isolate);
  asyncctx::RuntimeOptions options;
  options.platform = f->platform.get();
  // Node treats a hook error as fatal. Here it terminates the isolate's
  // JavaScript instead, which both stops hooks that trigger themselves
  // (exponentially, with a handler that returns) and fuzzes termination at
  // arbitrary points; the host then cancels it and carries on.
  options.on_hook_error = [](v8::Isolate* isolate,
                             const asyncctx::HookError& error) {
    if (std::getenv("FUZZ_TRACE") != nullptr) {
      std::fprintf(stderr, "trace: hook error in %s: %s\n%s\n",
                   error.hook_name.c_str(), error.message.c_str(),
                   error.stack.c_str());
    }
    g_fuzzer->hook_errors++;
    isolate->TerminateExecution();
  };
  options.on_uncaught_exception =
      [](v8::Local<v8::Context>, v8::Local<v8::Value>, v8::Local<v8::Message>) {
        g_fuzzer->uncaught++;
      };
  options.on_unhandled_rejection = [](v8::Local<v8::Context>,
                                      v8::Local<v8::Promise>,
                                      v8::Local<v8::Value>) {};
  f->runtime = asyncctx::Runtime::Create(f->isolate, options);
  v8::Local<v8::Context> context = v8::Context::New(f->isolate);
  if (f->runtime->Install(context).IsNothing())
    Broken("Install failed");
  v8::Context::Scope context_scope(context);
  v8::Local<v8::Object> host = v8::Object::New(f->isolate);
  host->Set(context, v8::String::NewFromUtf8Literal(f->isolate, "setTimer"),
            v8::Function::New(context, SetTimer).ToLocalChecked())
      .Check();
  if (std::getenv("FUZZ_TRACE") != nullptr) {
    host->Set(context, v8::String::NewFromUtf8Literal(f->isolate, "trace"),
              v8::Function::New(
                  context,
                  [](const v8::FunctionCallbackInfo<v8::Value>& info) {
                    v8::String::Utf8Value line(info.GetIsolate(), info[0]);
                    std::fprintf(stderr, "trace: %s\n",
                                 *line != nullptr ? *line : "?");
                  })
                  .ToLocalChecked())
        .Check();
  }
  host->Set(context, v8::String::NewFromUtf8Literal(f->isolate, "keyScope"),
            v8::Function::New(context, KeyScope).ToLocalChecked())
      .Check();
  v8::Local<v8::Value> factory =
      v8::Script::Compile(
          context, v8::String::NewFromUtf8Literal(f->isolate, kInterpreter))
          .ToLocalChecked()
          ->Run(context)
          .ToLocalChecked();
  v8::Local<v8::Value> argv[] = {host};
  v8::Local<v8::Value> run =
      factory.As<v8::Function>()
          ->Call(context, v8::Undefined(f->isolate), 1, argv)
          .ToLocalChecked();
  f->run.Reset(f->isolate, run.As<v8::Function>());
  f->context.Reset(f->isolate, context);
}

void CheckAtRest(v8::Local<v8::Context> context, const char* when) {
  asyncctx::Runtime* runtime = g_fuzzer->runtime.get();
  if (runtime->ExecutionStackDepth() != 0 || runtime->ExecutionAsyncId() != 1 ||
      runtime->TriggerAsyncId() != 0) {
    Broken(std::string("execution stack not at rest ") + when + ": depth " +
           std::to_string(runtime->ExecutionStackDepth()) + ", ids " +
           std::to_string(runtime->ExecutionAsyncId()) + "/" +
           std::to_string(runtime->TriggerAsyncId()));
  }
}

// Ends a host macrotask: cancels a termination a hook error requested and
// runs the checkpoint (which also recovers from the termination).
void Settle(v8::Local<v8::Context> context) {
  g_fuzzer->isolate->CancelTerminateExecution();
  g_fuzzer->runtime->RunMicrotasks(context);
  g_fuzzer->isolate->CancelTerminateExecution();
  g_fuzzer->runtime->RunMicrotasks(context);
}

void RunOneInput(const uint8_t* data, size_t size) {
  Fuzzer* f = g_fuzzer;
  v8::Isolate* isolate = f->isolate;
  v8::HandleScope handle_scope(isolate);
  v8::Local<v8::Context> context = f->context.Get(isolate);
  v8::Context::Scope context_scope(context);
  // The first byte picks how the host enters: a top-level script, or a
  // callback of a host resource.
  uint8_t mode = size > 0 ? data[0] : 0;
  v8::Local<v8::ArrayBuffer> buffer = v8::ArrayBuffer::New(isolate, size);
  if (size > 0)
    std::memcpy(buffer->GetBackingStore()->Data(), data, size);
  v8::Local<v8::Value> argv[] = {v8::Uint8Array::New(buffer, 0, size),
                                 v8::Number::New(isolate, 400)};
  v8::Local<v8::Function> run = f->run.Get(isolate);
  v8::Local<v8::Value> made;
  {
    v8::TryCatch try_catch(isolate);
    if (mode % 2 == 0) {
      (void)run->Call(context, v8::Undefined(isolate), 2, argv).ToLocal(&made);
    } else {
      asyncctx::AsyncResource request(context, "FuzzRequest");
      asyncctx::CallbackScope scope(&request);
      v8::TryCatch inner(isolate);
      if (!run->Call(context, v8::Undefined(isolate), 2, argv).ToLocal(&made)) {
        scope.MarkAsFailed();
      }
    }
  }
  Settle(context);
  CheckAtRest(context, "after the input");
  // Host timers, in order, each through a CallbackScope; they may add more.
  for (size_t i = 0; i < f->timers.size() && i < 64; i++) {
    v8::HandleScope scope(isolate);
    v8::Local<v8::Function> fn = f->timers[i].Get(isolate);
    {
      v8::TryCatch try_catch(isolate);
      (void)asyncctx::MakeCallback(f->resources[i].get(),
                                   v8::Undefined(isolate), fn, 0, nullptr)
          .IsEmpty();
    }
    Settle(context);
    CheckAtRest(context, "after a host timer");
  }
  f->timers.clear();
  f->resources.clear();  // emits destroy, from a task
  {
    v8::TryCatch try_catch(isolate);
    while (v8::platform::PumpMessageLoop(f->platform.get(), isolate)) {
      f->isolate->CancelTerminateExecution();
    }
  }
  Settle(context);
  CheckAtRest(context, "after the tasks");
  // No store or variable of this input has a value at the root frame.
  if (!made.IsEmpty() && made->IsArray()) {
    v8::Local<v8::Array> list = made.As<v8::Array>();
    for (uint32_t i = 0; i < list->Length(); i++) {
      v8::Local<v8::Value> item;
      if (!list->Get(context, i).ToLocal(&item))
        continue;
      std::unique_ptr<asyncctx::ContextKey> key =
          asyncctx::ContextKey::FromJavaScript(context, item);
      if (key != nullptr && key->Has(context)) {
        Broken(
            "a store or variable has a value in the root frame after "
            "the input");
      }
    }
  }
  // Disable whatever hooks the input left enabled.
  {
    v8::TryCatch try_catch(isolate);
    v8::Local<v8::Value> cleanup;
    if (!run->Get(context, v8::String::NewFromUtf8Literal(isolate, "cleanup"))
             .ToLocal(&cleanup) ||
        !cleanup->IsFunction() ||
        cleanup.As<v8::Function>()
            ->Call(context, v8::Undefined(isolate), 0, nullptr)
            .IsEmpty()) {
      v8::String::Utf8Value message(isolate, try_catch.Exception());
      Broken(std::string("cleanup() threw: ") +
             (*message != nullptr ? *message : "?") +
             (try_catch.HasTerminated() ? " (terminated)" : ""));
    }
  }
  if (++f->inputs % 500 == 0)
    isolate->LowMemoryNotification();
}

}  // namespace

// ASan's default 256 MB quarantine, with V8's allocation pattern, grows the
// process past libFuzzer's 2 GB RSS limit in long runs (the heap itself stays
// flat); a smaller one still catches use-after-free.
extern "C" const char* __asan_default_options() {
  return "quarantine_size_mb=32:detect_stack_use_after_return=0";
}

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  // Defaults for flags the command line does not set (libFuzzer parses argv
  // after this function returns):
  // * -detect_leaks=0: V8's heap grows across inputs by design, which the
  //   per-input leak check would report (LeakSanitizer runs on the ASan
  //   build of the unit tests instead, and at exit here: TearDown()).
  // * -rss_limit_mb=6144: ASan's stack depot keeps every distinct allocation
  //   stack, and stacks through V8's JIT code rarely repeat, so the RSS of an
  //   ASan build grows by a few KB per input (the same build without ASan
  //   stays flat); the default 2 GB limit ends runs after ~150,000 inputs.
  static std::vector<char*> args(*argv, *argv + *argc);
  static char no_leaks[] = "-detect_leaks=0";
  static char rss_limit[] = "-rss_limit_mb=6144";
  for (char* flag : {no_leaks, rss_limit}) {
    size_t name_length = std::strchr(flag, '=') - flag + 1;
    bool given = false;
    for (int i = 1; i < *argc; i++) {
      if (std::strncmp((*argv)[i], flag, name_length) == 0)
        given = true;
    }
    if (!given)
      args.insert(args.begin() + 1, flag);
  }
  *argc = static_cast<int>(args.size());
  args.push_back(nullptr);
  *argv = args.data();
  Initialize();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  RunOneInput(data, size);
  return 0;
}
