// BurstGPT (Wang et al., "BurstGPT: A Real-world Workload Dataset to Optimize LLM Serving
// Systems", 2024; github.com/HPMLL/BurstGPT): CSV `Timestamp,Model,Request tokens,Response
// tokens,Total tokens,Log Type`, timestamps in seconds from the trace's start. A response of 0
// tokens is a failed request: the README says BurstGPT_1.csv and BurstGPT_2.csv hold "some
// failure that `Response tokens` are 0s", and the BurstGPT_without_fails_*.csv files are the same
// traces with those rows removed (github.com/HPMLL/BurstGPT, README.md). Such rows are skipped
// and counted as failed requests, as rows whose `success` column is false are in other logs.
#include "request_readers.hpp"

namespace kspeed::io::requests {

bool read_burstgpt_csv(LogInput& input) {
  ColumnMapping mapping;
  mapping.arrival = ColumnSpec{"Timestamp", 1e9, false, false};
  mapping.prompt = {"Request tokens"};
  mapping.response = {"Response tokens"};
  mapping.model = ColumnSpec{"Model"};
  mapping.zero_response_failed = true;
  if (!read_mapped_csv(input, mapping, false)) {
    mapping.model.reset();  // an export without the model column
    if (!read_mapped_csv(input, mapping, false)) return false;
  }
  input.report->format = RequestFormat::burstgpt_csv;
  return true;
}

}  // namespace kspeed::io::requests
