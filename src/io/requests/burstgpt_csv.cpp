// BurstGPT (Wang et al., "BurstGPT: A Real-world Workload Dataset to Optimize LLM Serving
// Systems", 2024; github.com/HPMLL/BurstGPT): CSV `Timestamp,Model,Request tokens,Response
// tokens,Total tokens,Log Type`, timestamps in seconds from the trace's start. Failed requests
// have a response of 0 tokens; they are kept as prefill-only requests and counted.
#include "request_readers.hpp"

namespace kspeed::io::requests {

bool read_burstgpt_csv(LogInput& input) {
  ColumnMapping mapping;
  mapping.arrival = ColumnSpec{"Timestamp", 1e9, false, false};
  mapping.prompt = {"Request tokens"};
  mapping.response = {"Response tokens"};
  mapping.model = ColumnSpec{"Model"};
  if (!read_mapped_csv(input, mapping, false)) {
    mapping.model.reset();  // an export without the model column
    if (!read_mapped_csv(input, mapping, false)) return false;
  }
  input.report->format = RequestFormat::burstgpt_csv;
  return true;
}

}  // namespace kspeed::io::requests
