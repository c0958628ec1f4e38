// --v8-flags passes flags through to V8 (here: the one that defines gc()).
// args: --v8-flags=--expose-gc
// expect-stdout: ^typeof gc: function$
console.log('typeof gc: ' + typeof gc);
