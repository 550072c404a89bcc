// kspeed: what is this kernel speedup worth to my users? All logic lives in kspeed_core.
#include "kspeed/cli/app.hpp"

int main(int argc, char** argv) {
  return kspeed::cli::run(argc, argv);
}
