import { describe, expect, it } from 'vitest';
import type { Box, Checkpoint } from '../../api/hooks/boxes.js';
import { buildLineage, type BoxNode, type CheckpointNode } from './lineage-tree.js';

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
