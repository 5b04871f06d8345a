/** Inference request bodies carry whole conversations: larger than the box API default. */
export const INFERENCE_BODY_LIMIT = 16 * 1024 * 1024;
