#!/usr/bin/env python3
"""Writes the 10^6-request log of docs/performance.md, "Replay memory (issue 26)".

The public Azure LLM inference trace 2023, conversation (Azure/AzurePublicDataset
data/AzureLLMInferenceTrace_conv.csv, CC-BY-4.0) repeated back to back, each copy shifted by the
log's span plus one second, in the same CSV format (TIMESTAMP,ContextTokens,GeneratedTokens),
cut at N rows.

Usage: make_million_log.py AZURE_CONV_CSV N OUT_CSV
"""
import csv
import datetime
import sys


def parse_stamp(text):
    # "2023-11-16 18:15:46.6805900": seven fractional digits, the last always 0 in the log
    head, fraction = text.split(".")
    return (datetime.datetime.strptime(head, "%Y-%m-%d %H:%M:%S") +
            datetime.timedelta(microseconds=int(fraction[:6])))


def main(source, count, target):
    with open(source, newline="") as handle:
        rows = list(csv.reader(handle))[1:]
    stamps = [parse_stamp(row[0]) for row in rows]
    shift = max(stamps) - min(stamps) + datetime.timedelta(seconds=1)
    written = 0
    copy = 0
    with open(target, "w") as out:
        out.write("TIMESTAMP,ContextTokens,GeneratedTokens\n")
        while written < count:
            for stamp, row in zip(stamps, rows):
                if written == count:
                    break
                shifted = (stamp + copy * shift).strftime("%Y-%m-%d %H:%M:%S.%f")
                out.write("%s0,%s,%s\n" % (shifted, row[1], row[2]))
                written += 1
            copy += 1


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
