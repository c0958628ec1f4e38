// As a fresh program: disable() exits the
// instance's contexts, so a timer created after it inside the callback does
// not see the old store once the instance is enabled again. Node 18, 20 and
// 24 print undefined.
// expect-stdout: ^timer created after disable sees undefined$
const als = new AsyncLocalStorage();
als.run('secret', () => {
  als.disable();
  setTimeout(() => console.log('timer created after disable sees', als.getStore()), 5);
});
als.run('other', () => {});
