type AgentErrorCode = 'not_found' | 'is_directory' | 'not_directory' | 'permission_denied' | 'exists' | 'invalid' | 'disconnected' | 'timeout' | 'io';

const KNOWN = new Set<string>(['not_found', 'is_directory', 'not_directory', 'permission_denied', 'exists', 'invalid', 'disconnected', 'timeout', 'io']);

/** Failure reported by the guest agent, or of the channel to it. */
export class AgentError extends Error {
  readonly code: AgentErrorCode;
  readonly errno?: number;

  constructor(code: AgentErrorCode, message: string, errno?: number) {
    super(message);
    this.name = 'AgentError';
    this.code = code;
    this.errno = errno;
  }

  static fromWire(code: string | undefined, message: string | undefined, errno?: number): AgentError {
    const c = (code && KNOWN.has(code) ? code : 'io') as AgentErrorCode;
    return new AgentError(c, message ?? code ?? 'agent error', errno);
  }
}
