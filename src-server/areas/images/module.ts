import type { AppBase } from '../../platform/app-context.js';
import type { Area } from '../../platform/area.js';
import type { BoxService } from '../boxes/module.js';
import type { TemplateService } from '../templates/ports.js';
import { BUILTIN_IMAGE } from './image-store.js';
import { ImagesService } from './images-service.js';
import { imageRoutes } from './images-routes.js';
import { startImageCommand } from './start-command.js';

/**
 * Images, built after boxes: gives the runtime the disk of each image and the box service
 * the image names, puts an image's ENV into every process of its boxes, and starts its CMD
 * after every boot (boxes.guestSetup).
 */
export function imagesArea(app: AppBase, deps: { boxes: BoxService; templates: TemplateService }) {
  const { boxes } = deps;
  const images = new ImagesService(app, boxes, deps.templates);
  boxes.setImageResolver((name) => images.store.resolve(name));
  boxes.hooks.images = images;
  boxes.guestSetup.add((box) => {
    if (box.image === BUILTIN_IMAGE) return {};
    const c = images.configOf(box.image);
    return { env: c.env, cwd: c.workdir ?? undefined, user: c.user ?? undefined };
  });
  boxes.guestSetup.onStarted(async (box, agent) => {
    if (box.image === BUILTIN_IMAGE) return;
    await startImageCommand(agent, images.configOf(box.image), boxes.guestSetup.env(box));
  });
  const area: Area = { name: 'images', routes: (r) => imageRoutes(r, images) };
  return { images, area };
}
export { buildImage } from './index.js';
export type { ImagesService } from './images-service.js';
