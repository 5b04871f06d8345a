import type { Rates } from '@box/contract/usage';

/**
 * Default prices in USD nanos: about $0.04 per vCPU-hour, $0.005 per GiB-hour of memory,
 * $0.10 per million input tokens and $0.40 per million output tokens. `tuning.usageRates`
 * overrides any of them (tests, or a user who wants to track a different price list).
 */
const DEFAULT_RATES: Rates = {
  vcpu_second_usd_nanos: 11_000,
  memory_gib_second_usd_nanos: 1_400,
  input_token_usd_nanos: 100,
  output_token_usd_nanos: 400,
};

export function ratesFrom(over: Partial<Rates>): Rates {
  return { ...DEFAULT_RATES, ...over };
}

/** What a box of this size running for `seconds` uses and costs. */
export function boxCost(rates: Rates, seconds: number, vcpus: number, memoryMib: number) {
  const vcpuSeconds = seconds * vcpus;
  const memoryGibSeconds = (seconds * memoryMib) / 1024;
  const nanos = vcpuSeconds * rates.vcpu_second_usd_nanos + memoryGibSeconds * rates.memory_gib_second_usd_nanos;
  return { vcpuSeconds, memoryGibSeconds, nanos };
}

export const tokenCost = (rates: Rates, inputTokens: number, outputTokens: number) =>
  Math.round(inputTokens * rates.input_token_usd_nanos + outputTokens * rates.output_token_usd_nanos);
