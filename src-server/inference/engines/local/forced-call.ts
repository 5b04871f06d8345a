import { LlamaText, type ChatWrapper } from 'node-llama-cpp';

/**
 * The model's own chat wrapper, made to open its answer with a function call (tool_choice
 * `required` or a named tool): its rendered context is unchanged, and generation starts
 * in function-calling mode, so the template's call syntax is used and the arguments are
 * grammar-constrained to the tool's schema, as for a call the model chose itself.
 */
export function forcedCallWrapper(base: ChatWrapper): ChatWrapper {
  const forced = Object.create(base) as ChatWrapper;
  forced.generateContextState = (opts) => {
    const st = base.generateContextState(opts);
    if ('functionCall' in st || 'ignoreStartText' in st) {
      return { ...st, functionCall: { initiallyEngaged: true, disengageInitiallyEngaged: [] } } as typeof st;
    }
    return { ...st, prefixTriggers: undefined, noPrefixTrigger: { type: 'functionCall', inject: LlamaText([]) } } as typeof st;
  };
  return forced;
}
