// Copyright 2026 the asyncctx authors. All rights reserved.

#include "tools/shell/shell.h"

#include <cstdio>

#include "tools/shell/bench_natives.h"
#include "tools/shell/inspect/console.h"
#include "tools/shell/script.h"
#include "v8-exception.h"
#include "v8-local-handle.h"

namespace asyncctx {
namespace shell {
namespace {

constexpr int kUnsettledTopLevelAwait = 13;

}  // namespace

Shell::Shell(v8::Isolate* isolate,
             v8::Platform* platform,
             const TimeOrigin* origin)
    : isolate_(isolate),
      platform_(platform),
      origin_(origin),
      reporter_(isolate) {}

Shell::~Shell() {
  v8::HandleScope handle_scope(isolate_);
  loop_.reset();
  timers_.reset();
  modules_.reset();
  reporter_.set_events(nullptr);
  events_.reset();
  context_.Reset();
  runtime_.reset();
  // A fatal error left termination pending; the isolate is disposed next and
  // must not see it.
  isolate_->CancelTerminateExecution();
}

bool Shell::Initialize() {
  asyncctx::RuntimeOptions options;
  // The library posts its batched destroy-hook emission to the platform's
  // foreground queue, which the event loop pumps.
  options.platform = platform_;
  options.on_uncaught_exception = [this](v8::Local<v8::Context> context,
                                         v8::Local<v8::Value> exception,
                                         v8::Local<v8::Message> message) {
    reporter_.ReportException(context, exception, message);
  };
  options.on_unhandled_rejection = [this](v8::Local<v8::Context> context,
                                          v8::Local<v8::Promise> promise,
                                          v8::Local<v8::Value> reason) {
    reporter_.ReportUnhandledRejection(context, promise, reason);
  };
  options.on_hook_error = [this](v8::Isolate* isolate,
                                 const asyncctx::HookError& error) {
    reporter_.ReportHookError(error);
  };
  runtime_ = asyncctx::Runtime::Create(isolate_, std::move(options));
  if (!runtime_) {
    fputs("asyncctx_shell: could not create the asyncctx runtime\n", stderr);
    return false;
  }

  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Context> context = v8::Context::New(isolate_);
  v8::Context::Scope context_scope(context);
  context_.Reset(isolate_, context);
  loop_ = std::make_unique<EventLoop>(isolate_, context, platform_,
                                      runtime_.get(), &reporter_);
  timers_ = std::make_unique<Timers>(isolate_, loop_.get());
  events_ =
      std::make_unique<GlobalEvents>(isolate_, runtime_.get(), &reporter_);
  modules_ = std::make_unique<ModuleLoader>(isolate_, &reporter_);

  v8::TryCatch try_catch(isolate_);
  bool installed = runtime_->Install(context).FromMaybe(false) &&
                   InstallConsole(context, &reporter_) &&
                   InstallPerformance(context, origin_) &&
                   InstallLoad(context) && timers_->Install(context) &&
                   events_->Install(context) &&
                   (!bench_natives_ || InstallBenchNatives(context));
  if (!installed) {
    fputs("asyncctx_shell: could not install the globals\n", stderr);
    reporter_.ReportTryCatch(context, try_catch);
    return false;
  }
  reporter_.set_events(events_.get());
  loop_->set_between_iterations([this](v8::Local<v8::Context> context) {
    events_->DispatchRejectionHandled(context);
  });
  return true;
}

int Shell::Run(const std::vector<SourceFile>& files) {
  v8::HandleScope handle_scope(isolate_);
  v8::Local<v8::Context> context = context_.Get(isolate_);
  v8::Context::Scope context_scope(context);

  for (const SourceFile& file : files) {
    {
      v8::TryCatch try_catch(isolate_);
      bool ok = file.is_module
                    ? modules_->RunMain(context, file.name, file.contents)
                    : !RunScript(context, file.name, file.contents).IsEmpty();
      if (!ok)
        reporter_.ReportTryCatch(context, try_catch);
    }
    if (reporter_.failed())
      return reporter_.exit_code();
    runtime_->RunMicrotasks(context);
    if (reporter_.failed())
      return reporter_.exit_code();
  }

  while (!reporter_.failed()) {
    loop_->Run();
    if (reporter_.failed())
      break;
    events_->DispatchRejectionHandled(context);
    if (reporter_.failed())
      break;
    events_->DispatchLifecycle(context, "beforeunload");
    if (!loop_->alive())
      break;
  }
  if (reporter_.failed())
    return reporter_.exit_code();
  // Node's exit code 13: the loop drained while a module still awaited.
  std::string unsettled = modules_->UnsettledTopLevelAwait();
  events_->DispatchLifecycle(context, "unload");
  if (!unsettled.empty() && !reporter_.failed()) {
    fflush(stdout);
    fprintf(stderr, "Warning: Detected unsettled top-level await at %s\n",
            unsettled.c_str());
    return kUnsettledTopLevelAwait;
  }
  return reporter_.exit_code();
}

}  // namespace shell
}  // namespace asyncctx
