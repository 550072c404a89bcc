// Azure LLM inference traces (Patel et al., "Splitwise", ISCA 2024;
// github.com/Azure/AzurePublicDataset), the 2023 and 2024 releases: CSV
// `TIMESTAMP,ContextTokens,GeneratedTokens`, timestamps such as `2023-11-16 18:15:46.6805900`
// (7 fractional digits; a UTC offset such as `+00:00` is accepted too).
#include "request_readers.hpp"

namespace kspeed::io::requests {

bool read_azure_csv(LogInput& input) {
  ColumnMapping mapping;
  mapping.arrival = ColumnSpec{"TIMESTAMP", 1, true, false};
  mapping.prompt = {"ContextTokens"};
  mapping.response = {"GeneratedTokens"};
  if (!read_mapped_csv(input, mapping, false)) return false;
  input.report->format = RequestFormat::azure_csv;
  return true;
}

}  // namespace kspeed::io::requests
