import type { AreaModule } from '../app-context.js';
import { BUILTIN_IMAGE } from './image-store.js';
import { ImagesService } from './images-service.js';
import { imageRoutes } from './routes.js';
import { startImageCommand } from './start-command.js';

declare module '../app-context.js' {
  interface Services {
    images: ImagesService;
  }
}

/**
 * Images: installed after boxes. Gives the runtime the disk of each image, puts an image's
 * ENV into every process of its boxes, and starts its CMD after every boot.
 */
export const imagesModule: AreaModule = {
  name: 'images',
  install(app, r) {
    const images = new ImagesService(app);
    app.services.images = images;
    const boxes = app.services.boxes;
    if (boxes) {
      boxes.runtime.setImageResolver?.((name) => images.store.resolve(name));
      boxes.guestSetup.add((box) => (box.image === BUILTIN_IMAGE ? {} : { env: images.configOf(box.image).env }));
      boxes.guestSetup.onStarted(async (box, agent) => {
        if (box.image === BUILTIN_IMAGE) return;
        await startImageCommand(agent, images.configOf(box.image), boxes.guestSetup.env(box));
      });
    }
    imageRoutes(r);
  },
};
