// console.log formats its arguments like Node's util.format/util.inspect:
// strings bare at the top level and quoted inside containers, -0, bigints,
// symbols, arrays, objects, depth-limited nesting, cycles, functions and
// classes, Map/Set/Promise/RegExp/Date/typed arrays, sparse arrays, getters,
// Node's 80-column line breaking and column grouping, and the %s %d %i %j
// %o %O %f %c %% placeholders. The expected lines are Node's own output for
// this file (regex metacharacters escaped); console.log() prints an empty
// line.
// expect-stdout: ^top-level string is unquoted it's$
// expect-stdout: ^\[ 'in an array', "it's", `both ' and "` \] \{ s: 'in an object' \}$
// expect-stdout: ^42 -0 0 1\.5 NaN -Infinity 123n -5n$
// expect-stdout: ^Symbol\(desc\) Symbol\(\) \[ Symbol\(in array\) \]$
// expect-stdout: ^undefined null true \[ undefined, null \]$
// expect-stdout: ^\[ 1, 2, 3 \] \[\] \[ \[\] \] \[ 1, \[ 2, \[ 3, \[Array\] \] \] \]$
// expect-stdout: ^\{ a: 1, b: 'x' \} \{\} \{ '3': 'three', 'key-with-dash': 1, valid_id: 2 \}$
// expect-stdout: ^\{ a: \{ b: \{ c: \[Object\] \} \} \} \{ a: \[ \{ b: \[Object\] \} \] \}$
// expect-stdout: ^<ref \*1> \{ name: 'loop', self: \[Circular \*1\] \}$
// expect-stdout: ^<ref \*1> \[ 1, \[Circular \*1\] \]$
// expect-stdout: ^\[Function: named\] \[Function \(anonymous\)\] \[class Foo\] \[class Bar extends Foo\]$
// expect-stdout: ^\[AsyncFunction: af\] \[GeneratorFunction: gen\] \[Function: max\]$
// expect-stdout: ^Map\(2\) \{ 'a' => 1, 'b' => \{ c: 2 \} \} Set\(2\) \{ 1, 'two' \} Map\(0\) \{\}$
// expect-stdout: ^Promise \{ 42 \} Promise \{ <pending> \}$
// expect-stdout: ^/re\+/gi 1970-01-01T00:00:00\.000Z Uint8Array\(3\) \[ 1, 2, 3 \]$
// expect-stdout: ^\[Object: null prototype\] \{\} Point \{ x: 1 \}$
// expect-stdout: ^\[ <3 empty items> \] \[ 1, <1 empty item>, 3 \] \[ 1, extra: true \]$
// expect-stdout: ^\{ g: \[Getter\], \[Symbol\(key\)\]: 'symbol key' \}$
// expect-stdout: ^\[\n   0,  3,  6,  9, 12, 15, 18, 21, 24,\n  27, 30, 33, 36, 39, 42, 45, 48, 51,\n  54, 57, 60, 63, 66, 69, 72, 75, 78,\n  81, 84, 87\n\]$
// expect-stdout: ^101 \[ 0, 0 \]$
// expect-stdout: ^\{\n  longPropertyName1: 'a fairly long string value',\n  longPropertyName2: 'another long string value'\n\}$
// expect-stdout: ^Bob is 42\.5 years, 99% sure; \{"j":1\} \[ 1, \[length\]: 1 \] \{ o: 2 \} 1\.5$
// expect-stdout: ^only one %s$
// expect-stdout: ^ after css$
// expect-stdout: ^a 1 \{ b: 2 \} c$
// expect-stdout: ^a 1 \{ b: 2 \} c\n\ninfo goes to stdout$
// expect-stdout: ^info goes to stdout$
// expect-stdout: ^debug goes to stdout$
console.log('top-level string', 'is unquoted', "it's");
console.log(['in an array', "it's", 'both \' and "'], {s: 'in an object'});
console.log(42, -0, 0, 1.5, NaN, -Infinity, 123n, -5n);
console.log(Symbol('desc'), Symbol(), [Symbol('in array')]);
console.log(undefined, null, true, [undefined, null]);
console.log([1, 2, 3], [], [[]], [1, [2, [3, [4, [5]]]]]);
console.log({a: 1, b: 'x'}, {}, {'key-with-dash': 1, valid_id: 2, 3: 'three'});
console.log({a: {b: {c: {d: 1}}}}, {a: [{b: {c: {}}}]});
const circular = {name: 'loop'};
circular.self = circular;
console.log(circular);
const list = [1];
list.push(list);
console.log(list);
class Foo {}
console.log(function named() {}, () => {}, Foo, class Bar extends Foo {});
console.log(async function af() {}, function* gen() {}, Math.max);
console.log(new Map([['a', 1], ['b', {c: 2}]]), new Set([1, 'two']), new Map());
console.log(Promise.resolve(42), new Promise(() => {}));
console.log(/re+/gi, new Date(0), new Uint8Array([1, 2, 3]));
class Point {
  constructor() {
    this.x = 1;
  }
}
console.log(Object.create(null), new Point());
console.log(new Array(3), [1, , 3], Object.assign([1], {extra: true}));
console.log({[Symbol('key')]: 'symbol key', get g() { return 1; }});
console.log(Array.from({length: 30}, (_, i) => i * 3));
const hundredOne = Array.from({length: 101}, () => 0);
console.log(hundredOne.length, hundredOne.slice(99));
console.log({
  longPropertyName1: 'a fairly long string value',
  longPropertyName2: 'another long string value',
});
console.log('%s is %d years, %i%% sure; %j %o %O %f', 'Bob', 42.5, 99.9,
            {j: 1}, [1], {o: 2}, '1.5x');
console.log('%s %s', 'only one');
console.log('%c', 'color: red', 'after css');
console.log('a', 1, {b: 2}, 'c');
console.log();
console.info('info goes to stdout');
console.debug('debug goes to stdout');
