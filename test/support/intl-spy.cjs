// Preloaded (`node --require`) into a service process by test/startup-footprint.e2e-spec.ts. Counts the real
// Intl.DateTimeFormat instances built (each maps ICU data into the process) and notes which module first
// required @nestjs/common; writes both as JSON to INTL_SPY_OUT when the process exits.
const Module = require('node:module');
const fs = require('node:fs');

let built = 0;
let nestCommonFirstRequiredBy;
Intl.DateTimeFormat = new Proxy(Intl.DateTimeFormat, {
  construct(target, args, newTarget) {
    built += 1;
    return Reflect.construct(target, args, newTarget);
  },
  apply(target, self, args) {
    built += 1;
    return Reflect.apply(target, self, args);
  },
});

const load = Module._load;
Module._load = function (request, parent, ...rest) {
  if (request === '@nestjs/common' && nestCommonFirstRequiredBy === undefined) {
    nestCommonFirstRequiredBy = parent?.filename;
  }
  return load.call(this, request, parent, ...rest);
};

process.on('exit', () => {
  fs.writeFileSync(process.env.INTL_SPY_OUT, JSON.stringify({ built, nestCommonFirstRequiredBy }));
});
