import type { RouteRegistrar } from '../http/route.js';
import { Image, ImageList, ImageNameParams } from '../contract/images.js';
import type { ImagesService } from './images-service.js';

/**
 * List, read and delete images. Building (Boxfile) and importing (OCI) are not HTTP
 * operations (spec item 6): `box image build|import` runs them through ImageBuilder /
 * importOciArchive on the same data dir, and the service sees the result at once.
 */
export function imageRoutes(r: RouteRegistrar, images: ImagesService) {
  r.add({
    method: 'get',
    path: '/v1/images',
    area: 'box',
    tag: 'images',
    response: ImageList,
    summary: 'List the images boxes can start from (built-in, Boxfile builds, OCI imports)',
    handler: async ({ auth }) => ({ data: await images.list(auth.orgId) }),
  });
  r.add({
    method: 'get',
    path: '/v1/images/:name',
    area: 'box',
    tag: 'images',
    params: ImageNameParams,
    response: Image,
    summary: 'Get an image',
    handler: async ({ auth, params }) => await images.get(auth.orgId, params.name),
  });
  r.add({
    method: 'delete',
    path: '/v1/images/:name',
    area: 'box',
    tag: 'images',
    params: ImageNameParams,
    response: Image,
    summary: 'Delete an image and the layers only it uses (409 while a box or template uses it)',
    handler: async ({ auth, params }) => await images.remove(auth.orgId, params.name),
  });
}
