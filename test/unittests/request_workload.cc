// Copyright 2026 the asyncctx authors. All rights reserved.

#include "test/unittests/request_workload.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "gtest/gtest.h"
#include "test/unittests/v8_fixture.h"
#include "tools/v8_host/v8_host.h"
#include "v8-container.h"
#include "v8-exception.h"
#include "v8-external.h"
#include "v8-primitive.h"
#include "v8-script.h"

namespace asyncctx {
namespace test {

int Scaled(int n, double asan, double tsan) {
  double scale = 1.0;
#if defined(ASYNCCTX_TSAN)
  scale = tsan;
#elif defined(ASYNCCTX_ASAN)
  scale = asan;
#endif
  if (const char* env = std::getenv("ASYNCCTX_STRESS_SCALE")) {
    double value = std::atof(env);
    if (value > 0)
      scale = value;
  }
  double scaled = std::round(n * scale);
  return scaled < 1 ? 1 : static_cast<int>(scaled);
}

MemoryUsage CurrentMemoryUsage() {
  MemoryUsage usage;
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr)
    return usage;
  unsigned long size = 0, resident = 0;
  if (std::fscanf(f, "%lu %lu", &size, &resident) == 2) {
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    usage.virtual_size = size * page;
    usage.resident = resident * page;
  }
  std::fclose(f);
  return usage;
}

namespace {

// The workload. `setTimer(fn, expectedId)` is the host's timer; the host
// checks from C++ that the request id it sees equals expectedId (when given).
const char kWorkload[] = R"JS(
(function() {
  'use strict';
  const als = new AsyncLocalStorage({name: 'request'});
  const requestId = new AsyncContext.Variable({name: 'requestId'});
  const rootSnapshot = new AsyncContext.Snapshot();
  const state = {round: 0, started: 0, done: 0, steps: 0, errors: []};
  let seed = 1;

  function rand(n) {  // mulberry32
    seed = (seed + 0x6D2B79F5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % n);
  }
  function fail(id, where, detail) {
    if (state.errors.length < 20) {
      const store = als.getStore();
      state.errors.push(`request ${id} at ${where}: saw store ` +
          `${store === undefined ? 'undefined' : store.id}, variable ` +
          `${requestId.get()}${detail ? ' (' + detail + ')' : ''}`);
    } else {
      state.errors.length++;
    }
  }
  function check(id, where) {
    state.steps++;
    const store = als.getStore();
    if (store === undefined || store.id !== id || requestId.get() !== id) {
      fail(id, where);
    }
  }
  function sleep(id) {
    return new Promise((resolve) => setTimer(() => {
      check(id, 'timer');
      resolve();
    }, id));
  }

  async function step(id, kind) {
    switch (kind) {
      case 0:
        await null;
        break;
      case 1:
        await {then(resolve) { check(id, 'then'); resolve(); }};
        break;
      case 2:
        await new Promise((resolve) => queueMicrotask(() => {
          check(id, 'microtask');
          resolve();
        }));
        break;
      case 3:
        await sleep(id);
        break;
      case 4: {
        const resource = new AsyncResource('Step');
        await sleep(id);
        // Run the resource's scope from another tenant's frame.
        als.run({id: -1}, () => requestId.run(-1, () => {
          resource.runInAsyncScope(() => {
            check(id, 'runInAsyncScope');
            if (asyncHooks.executionAsyncId() !== resource.asyncId()) {
              fail(id, 'runInAsyncScope', 'executionAsyncId');
            }
          });
          if (als.getStore().id !== -1) fail(id, 'after runInAsyncScope');
        }));
        resource.emitDestroy();
        break;
      }
      case 5:
        await Promise.all([
          null,
          {then(resolve) { check(id, 'Promise.all then'); resolve(); }},
          sleep(id),
          new Promise((resolve) => queueMicrotask(resolve)),
        ]);
        break;
      case 6: {
        const wrapped = AsyncContext.Snapshot.wrap(() => check(id, 'wrap'));
        const bound = AsyncResource.bind(() => check(id, 'bind'));
        await new Promise((resolve) => rootSnapshot.run(() => setTimer(() => {
          if (als.getStore() !== undefined || requestId.get() !== undefined) {
            fail(id, 'root timer', 'a root timer sees a request');
          }
          wrapped();
          bound();
          resolve();
        })));
        break;
      }
      case 7:
        await als.run({id}, async () => {
          await null;
          check(id, 'nested run');
        });
        break;
    }
    check(id, 'after step ' + kind);
  }

  globalThis.startRound = function(firstId, count, roundSeed) {
    seed = roundSeed;
    const round = ++state.round;
    state.started = 0;
    state.done = 0;
    state.steps = 0;
    state.errors = [];
    for (let i = 0; i < count; i++) {
      const id = firstId + i;
      const kinds = [];
      for (let n = 2 + rand(19); n > 0; n--) kinds.push(rand(8));
      state.started++;
      als.run({id}, () => requestId.run(id, async () => {
        check(id, 'start');
        for (const kind of kinds) await step(id, kind);
        check(id, 'end');
        if (round === state.round) state.done++;
      })).catch((err) => fail(id, 'threw', String(err && err.stack || err)));
      if (als.getStore() !== undefined || requestId.get() !== undefined) {
        fail(id, 'after run returned');
      }
    }
  };

  globalThis.roundReport = function() {
    const problems = [];
    if (state.done !== state.started) {
      problems.push(`${state.done} of ${state.started} requests finished`);
    }
    if (state.errors.length > 0) {
      problems.push(`${state.errors.length} cross-talk errors: ` +
                    state.errors.slice(0, 5).join('; '));
    }
    if (als.getStore() !== undefined || requestId.get() !== undefined) {
      problems.push('the top level sees a request');
    }
    return [state.started, state.steps, problems.join('; ')];
  };

  globalThis.__requestId = requestId;

  if (globalThis.__enableHooks) {
    const counts = {init: 0, before: 0, after: 0, destroy: 0, bad: 0};
    globalThis.__hookCounts = counts;
    asyncHooks.createHook({
      init(asyncId, type, triggerAsyncId, resource) {
        counts.init++;
        if (typeof asyncId !== 'number' || typeof type !== 'string') {
          counts.bad++;
        }
      },
      before(asyncId) {
        counts.before++;
        if (asyncHooks.executionAsyncId() !== asyncId) counts.bad++;
      },
      after(asyncId) {
        counts.after++;
        if (asyncHooks.executionAsyncId() !== asyncId) counts.bad++;
      },
      destroy() { counts.destroy++; },
      promiseResolve() {},
    }).enable();
  }
})();
)JS";

std::string ToString(v8::Isolate* isolate, v8::Local<v8::Value> value) {
  v8::String::Utf8Value utf8(isolate, value);
  return *utf8 != nullptr ? std::string(*utf8, utf8.length()) : "<?>";
}

}  // namespace

RequestLoop::RequestLoop(v8::Isolate* isolate,
                         Runtime* runtime,
                         v8::Local<v8::Context> context,
                         uint32_t seed,
                         Options options)
    : isolate_(isolate),
      runtime_(runtime),
      context_(isolate, context),
      options_(options),
      rng_(seed) {}

RequestLoop::~RequestLoop() {
  DropPendingTimers();
}

bool RequestLoop::Install() {
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Context> context = context_.Get(isolate_);
  v8::Context::Scope context_scope(context);
  v8::Local<v8::Object> global = context->Global();
  global
      ->Set(context, v8::String::NewFromUtf8Literal(isolate_, "setTimer"),
            v8::Function::New(context, SetTimer,
                              v8::External::New(isolate_, this))
                .ToLocalChecked())
      .Check();
  global
      ->Set(context, v8::String::NewFromUtf8Literal(isolate_, "__enableHooks"),
            v8::Boolean::New(isolate_, options_.hooks))
      .Check();
  v8::TryCatch try_catch(isolate_);
  v8::Local<v8::Script> script;
  if (!v8::Script::Compile(context,
                           v8::String::NewFromUtf8Literal(isolate_, kWorkload))
           .ToLocal(&script) ||
      script->Run(context).IsEmpty()) {
    ADD_FAILURE() << "the workload threw: "
                  << ToString(isolate_, try_catch.Exception());
    return false;
  }
  v8::Local<v8::Value> variable =
      global
          ->Get(context,
                v8::String::NewFromUtf8Literal(isolate_, "__requestId"))
          .ToLocalChecked();
  request_id_key_ = ContextKey::FromJavaScript(context, variable);
  EXPECT_NE(request_id_key_, nullptr);
  return request_id_key_ != nullptr;
}

void RequestLoop::SetTimer(const v8::FunctionCallbackInfo<v8::Value>& info) {
  auto* loop =
      static_cast<RequestLoop*>(info.Data().As<v8::External>()->Value());
  v8::Isolate* isolate = info.GetIsolate();
  if (!info[0]->IsFunction()) {
    isolate->ThrowException(v8::Exception::TypeError(
        v8::String::NewFromUtf8Literal(isolate, "setTimer needs a function")));
    return;
  }
  v8::Local<v8::Context> context = isolate->GetCurrentContext();
  if (info[1]->IsNumber() && loop->request_id_key_ != nullptr) {
    // What C++ reads must be what JavaScript reads.
    v8::Local<v8::Value> seen;
    if (loop->request_id_key_->Get(context).ToLocal(&seen)
            ? !seen->StrictEquals(info[1])
            : !isolate->IsExecutionTerminating()) {
      loop->native_mismatches_++;
    }
  }
  auto timer = std::make_unique<Timer>();
  timer->resource = std::make_unique<AsyncResource>(context, "Timeout");
  timer->callback.Reset(isolate, info[0].As<v8::Function>());
  loop->timers_.push_back(std::move(timer));
}

void RequestLoop::PumpPlatform() {
  while (host::PumpMessageLoop(isolate_)) {
  }
}

RequestLoop::Outcome RequestLoop::RunRound(int first_id,
                                           int count,
                                           uint32_t round_seed) {
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Context> context = context_.Get(isolate_);
  v8::Context::Scope context_scope(context);
  last_count_ = count;
  v8::Local<v8::Function> start =
      context->Global()
          ->Get(context, v8::String::NewFromUtf8Literal(isolate_, "startRound"))
          .ToLocalChecked()
          .As<v8::Function>();
  v8::Local<v8::Value> argv[] = {
      v8::Number::New(isolate_, first_id), v8::Number::New(isolate_, count),
      v8::Number::New(isolate_, static_cast<double>(round_seed))};
  bool terminated = false;
  // Once no JavaScript is on the stack, IsExecutionTerminating() is false
  // again: a termination during a checkpoint is seen only by a TryCatch
  // around it.
  v8::TryCatch outer_try_catch(isolate_);
  if (options_.start_in_callback_scope) {
    AsyncResource request(context, "Request");
    CallbackScope scope(&request);
    v8::TryCatch try_catch(isolate_);
    if (start->Call(context, v8::Undefined(isolate_), 3, argv).IsEmpty()) {
      scope.MarkAsFailed();
      // A termination that hit the scope's `before` hook is in flight
      // outside of this TryCatch.
      terminated =
          try_catch.HasTerminated() || isolate_->IsExecutionTerminating();
      if (!terminated) {
        ADD_FAILURE() << "startRound threw: "
                      << ToString(isolate_, try_catch.Exception());
      }
    }
  } else {
    v8::TryCatch try_catch(isolate_);
    if (start->Call(context, v8::Undefined(isolate_), 3, argv).IsEmpty()) {
      terminated =
          try_catch.HasTerminated() || isolate_->IsExecutionTerminating();
      if (!terminated) {
        ADD_FAILURE() << "startRound threw: "
                      << ToString(isolate_, try_catch.Exception());
      }
    }
    if (!terminated)
      runtime_->RunMicrotasks(context);
  }
  if (outer_try_catch.HasTerminated())
    terminated = true;
  if (terminated || isolate_->IsExecutionTerminating()) {
    return Outcome::kTerminated;
  }
  return RunUntilIdle();
}

RequestLoop::Outcome RequestLoop::RunTimers(size_t max_timers) {
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Context> context = context_.Get(isolate_);
  uint64_t ran = 0;
  for (;;) {
    if (isolate_->IsExecutionTerminating())
      return Outcome::kTerminated;
    if (ran >= max_timers)
      return timers_.empty() ? Outcome::kIdle : Outcome::kBusy;
    if (timers_.empty()) {
      // Destroy hooks and FinalizationRegistry cleanup run from tasks.
      PumpPlatform();
      if (isolate_->IsExecutionTerminating())
        return Outcome::kTerminated;
      if (timers_.empty())
        break;
    }
    size_t index = rng_() % timers_.size();
    std::unique_ptr<Timer> timer = std::move(timers_[index]);
    timers_[index] = std::move(timers_.back());
    timers_.pop_back();
    v8::HandleScope scope(isolate_);
    bool terminated = false;
    v8::TryCatch outer_try_catch(isolate_);  // sees the checkpoint's
    {
      CallbackScope callback_scope(timer->resource.get());
      v8::TryCatch try_catch(isolate_);
      if (timer->callback.Get(isolate_)
              ->Call(context, v8::Undefined(isolate_), 0, nullptr)
              .IsEmpty()) {
        callback_scope.MarkAsFailed();
        // A termination that hit the CallbackScope's `before` hook is in
        // flight outside of this TryCatch: the call returns empty with
        // nothing caught here.
        terminated =
            try_catch.HasTerminated() || isolate_->IsExecutionTerminating();
        if (!terminated && callback_errors_.size() < 2000) {
          callback_errors_ +=
              "timer threw: " + ToString(isolate_, try_catch.Exception()) +
              "\n";
        }
      }
    }
    if (outer_try_catch.HasTerminated())
      terminated = true;
    timers_run_++;
    if (runtime_->ExecutionStackDepth() != 0 ||
        runtime_->ExecutionAsyncId() != 1) {
      stack_errors_++;
    }
    if (terminated)
      return Outcome::kTerminated;
    if (++ran % 256 == 0)
      PumpPlatform();
  }
  return Outcome::kIdle;
}

std::string RequestLoop::CheckRound() {
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Context> context = context_.Get(isolate_);
  v8::Context::Scope context_scope(context);
  std::string problems;
  v8::Local<v8::Function> report =
      context->Global()
          ->Get(context,
                v8::String::NewFromUtf8Literal(isolate_, "roundReport"))
          .ToLocalChecked()
          .As<v8::Function>();
  v8::TryCatch try_catch(isolate_);
  v8::Local<v8::Value> result;
  if (!report->Call(context, v8::Undefined(isolate_), 0, nullptr)
           .ToLocal(&result) ||
      !result->IsArray()) {
    return "roundReport() threw: " + ToString(isolate_, try_catch.Exception());
  }
  v8::Local<v8::Array> array = result.As<v8::Array>();
  double started =
      array->Get(context, 0).ToLocalChecked()->NumberValue(context).FromJust();
  double steps =
      array->Get(context, 1).ToLocalChecked()->NumberValue(context).FromJust();
  problems = ToString(isolate_, array->Get(context, 2).ToLocalChecked());
  if (started != last_count_) {
    problems += "; started " + std::to_string(started);
  }
  requests_checked_ += static_cast<uint64_t>(started);
  steps_checked_ += static_cast<uint64_t>(steps);
  if (native_mismatches_ != 0) {
    problems += "; C++ saw another request's id " +
                std::to_string(native_mismatches_) + " times";
  }
  if (stack_errors_ != 0) {
    problems += "; execution stack not empty after a timer " +
                std::to_string(stack_errors_) + " times";
  }
  if (!callback_errors_.empty())
    problems += "; " + callback_errors_;
  if (runtime_->ExecutionStackDepth() != 0 ||
      runtime_->ExecutionAsyncId() != 1) {
    problems += "; execution stack depth " +
                std::to_string(runtime_->ExecutionStackDepth()) +
                " at the top level";
  }
  if (options_.hooks) {
    v8::Local<v8::Value> bad;
    if (v8::Script::Compile(context, v8::String::NewFromUtf8Literal(
                                         isolate_, "__hookCounts.bad"))
            .ToLocalChecked()
            ->Run(context)
            .ToLocal(&bad) &&
        bad->NumberValue(context).FromJust() != 0) {
      problems += "; executionAsyncId() differed from the hook's id " +
                  ToString(isolate_, bad) + " times";
    }
  }
  if (!timers_.empty())
    problems += "; timers still pending";
  native_mismatches_ = 0;
  stack_errors_ = 0;
  callback_errors_.clear();
  if (problems.rfind("; ", 0) == 0)
    problems = problems.substr(2);
  return problems;
}

void RequestLoop::DropPendingTimers() {
  timers_.clear();
}

}  // namespace test
}  // namespace asyncctx
