import type { ChatWrapper, LlamaText } from 'node-llama-cpp';

/**
 * The model's own chat wrapper, made to open its answer with a function call (tool_choice
 * `required` or a named tool): its rendered context is unchanged, and generation starts
 * in function-calling mode, so the template's call syntax is used and the arguments are
 * grammar-constrained to the tool's schema, as for a call the model chose itself.
 * `text` is node-llama-cpp's LlamaText, passed in: a value import of the package here would
 * load it (~0.8 s of CPU) at every service start, before any model is used (issue 28).
 */
export function forcedCallWrapper(base: ChatWrapper, text: typeof LlamaText): ChatWrapper {
  const forced = Object.create(base) as ChatWrapper;
  forced.generateContextState = (opts) => {
    const st = base.generateContextState(opts);
    if ('functionCall' in st || 'ignoreStartText' in st) {
      return { ...st, functionCall: { initiallyEngaged: true, disengageInitiallyEngaged: [] } } as typeof st;
    }
    return { ...st, prefixTriggers: undefined, noPrefixTrigger: { type: 'functionCall', inject: text([]) } } as typeof st;
  };
  return forced;
}
