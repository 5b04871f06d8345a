import type { Box, Checkpoint, LineageEdge } from '../../api/hooks/boxes.js';

/**
 * Checkpoints and forks as one tree: a box has its checkpoints as children, and a
 * checkpoint has the boxes started from it. A fork made without a listed checkpoint
 * hangs directly under its parent box.
 */
export interface BoxNode {
  kind: 'box';
  id: string;
  box: Box | null;
  children: Array<BoxNode | CheckpointNode>;
}
export interface CheckpointNode {
  kind: 'checkpoint';
  id: string;
  checkpoint: Checkpoint;
  children: BoxNode[];
}

export function buildLineage(boxId: string, boxes: Box[], checkpoints: Checkpoint[], edges: LineageEdge[]): BoxNode {
  const parentOf = new Map(edges.map((e) => [e.box_id, e]));
  let root = boxId;
  const seen = new Set<string>();
  while (parentOf.get(root)?.parent_box_id && !seen.has(root)) {
    seen.add(root);
    root = parentOf.get(root)!.parent_box_id!;
  }
  const byId = new Map(boxes.map((b) => [b.box_id, b]));
  const visited = new Set<string>();
  const boxNode = (id: string): BoxNode => {
    visited.add(id);
    const cps = checkpoints.filter((c) => c.box_id === id);
    const cpIds = new Set(cps.map((c) => c.checkpoint_id));
    const kids = edges.filter((e) => e.parent_box_id === id && !visited.has(e.box_id));
    return {
      kind: 'box',
      id,
      box: byId.get(id) ?? null,
      children: [
        ...cps.map((c) => ({
          kind: 'checkpoint' as const,
          id: c.checkpoint_id,
          checkpoint: c,
          children: edges.filter((e) => e.checkpoint_id === c.checkpoint_id && !visited.has(e.box_id)).map((e) => boxNode(e.box_id)),
        })),
        ...kids
          .filter((e) => !e.checkpoint_id || !cpIds.has(e.checkpoint_id))
          .filter((e) => !visited.has(e.box_id))
          .map((e) => boxNode(e.box_id)),
      ],
    };
  };
  return boxNode(root);
}
