import { BoxCommands } from '../views/boxes/box-commands.js';
import { addCommandSource } from './commands.js';
import { GeneralCommands } from './general-commands.js';

/** The palette's command sources, one line per area (add yours here). */
addCommandSource(GeneralCommands);
addCommandSource(BoxCommands);
