// Linked only into a fully static kspeed (KSPEED_STATIC in CMakeLists.txt), which passes
// -Wl,--wrap=dlopen: SQLite's one call to dlopen, made only by sqlite3_load_extension (kspeed
// never calls it), arrives here instead of at glibc's static dlopen. A static program cannot
// safely load a shared object built against another C library, so refusing is the honest answer;
// SQLite then reports the extension as not loadable.

// The name is the one GNU ld's --wrap gives the replacement; it must have C linkage.
// NOLINTNEXTLINE(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
extern "C" void* __wrap_dlopen(const char* /*file*/, int /*mode*/) {
  return nullptr;
}
