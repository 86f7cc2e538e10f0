// toy.mjs - the program minijit "compiles". minijit writes no code from this text; its line
// tables point here, so keep the line numbers stable (samples/minijit/minijit.h, TOY_*).

function mix(x, i) {
  return x * 31 + i;
}

function checksum(a, n) {
  let s = 0;
  for (let i = 0; i < n; i++) {
    s += mix(a[i], i);
  }
  return s;
}

function fill(a, n, seed) {
  for (let i = 0; i < n; i++) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    a[i] = seed;
  }
  return seed;
}
