import { Invalid } from '../../kernel/domain-errors.js';

/** A create names an image this service does not have (400 on Box's API; E2B's unknown template). */
export class UnknownImage extends Invalid {}
