/* Position-independent "runtime library" code: -fPIC makes every access to a global go
 * through the GOT, as in the precompiled ExecuTorch libraries. */
extern unsigned counter;

int bump(void) { return (int)++counter; }
