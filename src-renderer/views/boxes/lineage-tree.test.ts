import { describe, expect, it } from 'vitest';
import type { Box, Checkpoint } from '../../api/hooks/boxes.js';
import { buildLineage, checkpointOf, type BoxNode, type CheckpointNode } from './lineage-tree.js';

const box = (id: string) => ({ box_id: id, name: id }) as Box;
const cp = (id: string, boxId: string) => ({ checkpoint_id: id, box_id: boxId }) as Checkpoint;

describe('checkpoint and fork tree', () => {
  it('roots the tree at the oldest ancestor and hangs forks under their checkpoint', () => {
    const tree = buildLineage(
      'c',
      [box('a'), box('b'), box('c')],
      [cp('cp1', 'a')],
      [
        { box_id: 'b', parent_box_id: 'a', checkpoint_id: 'cp1' },
        { box_id: 'c', parent_box_id: 'b', checkpoint_id: 'cpX' },
      ],
    );
    expect(tree.id).toBe('a');
    const cpNode = tree.children[0] as CheckpointNode;
    expect(cpNode.kind).toBe('checkpoint');
    expect(cpNode.children.map((n) => n.id)).toEqual(['b']);
    expect((cpNode.children[0].children[0] as BoxNode).id).toBe('c');
  });

  it('survives a cycle in bad data', () => {
    const tree = buildLineage(
      'a',
      [box('a'), box('b')],
      [],
      [
        { box_id: 'a', parent_box_id: 'b', checkpoint_id: null },
        { box_id: 'b', parent_box_id: 'a', checkpoint_id: null },
      ],
    );
    expect(['a', 'b']).toContain(tree.id);
  });
});

describe('the checkpoint a box is on', () => {
  const c = (id: string, boxId: string, gen: number, at: string) =>
    ({ checkpoint_id: id, box_id: boxId, checkpoint_generation: gen, status: 'ready', created_at: at }) as Checkpoint;
  const cps = [c('cp1', 'a', 1, '2026-01-01T00:00:00Z'), c('cp2', 'a', 2, '2026-01-02T00:00:00Z')];
  it('is its own checkpoint of its current generation', () => {
    expect(checkpointOf({ box_id: 'a', checkpoint_generation: 2 } as Box, cps, [])).toBe('cp2');
  });
  it('is the checkpoint a fork started from, until the fork checkpoints itself', () => {
    const edges = [{ box_id: 'b', parent_box_id: 'a', checkpoint_id: 'cp1' }];
    expect(checkpointOf({ box_id: 'b', checkpoint_generation: 0 } as Box, cps, edges)).toBe('cp1');
    expect(checkpointOf({ box_id: 'b', checkpoint_generation: 1 } as Box, [...cps, c('cp3', 'b', 1, '2026-01-03T00:00:00Z')], edges)).toBe('cp3');
  });
  it('is none for a box never checkpointed nor forked', () => {
    expect(checkpointOf({ box_id: 'z', checkpoint_generation: 0 } as Box, cps, [])).toBeNull();
  });
});
