import type { z } from 'zod';
import * as B from './boxes.js';
import * as BO from './box-ops.js';
import { listOf, PageQuery, pageOf } from './common.js';
import * as C from './cron.js';
import * as D from './desktop.js';
import * as Code from './code.js';
import * as E from './e2b.js';
import * as EF from './e2b-features.js';
import * as ER from './e2b-rest.js';
import { CancelBody, ExecBody, ExecCancelled, ExecInfo, ExecResized, ExecResult, ResizeBody, StdinAccepted, StdinQuery } from './exec.js';
import { GetFileQuery, ListDirQuery, PutFileQuery } from './files.js';
import * as Id from './identity.js';
import { Image, ImageList } from './images.js';
import * as Ib from './inbox.js';
import * as Inf from './inference.js';
import { CompactBody, CompactedResponse } from './inference-compact.js';
import { EmbeddingList, EmbeddingsBody } from './inference-embeddings.js';
import { ChatCompletion, MessageObject, NeverSucceeds, ResponseObject } from './inference-wire.js';
import { ChatStreamChunk, MessagesStreamEvent, ResponsesStreamEvent } from './inference-stream.js';
import { McpTool } from './mcp.js';
import * as N from './network.js';
import * as P from './policies.js';
import * as S from './service-admin.js';
import * as Sv from './serving.js';
import { CertificateBody, SshCa, SshCertificate } from './ssh.js';
import { PutSecretBody, SecretMeta } from './secrets.js';
import { Template, TemplateList } from './templates.js';
import { BoxInferenceBudget, MetricsQuery, MetricsResponse, SpendQuery, SpendResponse, TokensQuery, TokensResponse } from './usage.js';
import { DeletedPath, MakeDirectoryBody, MovePathBody, DeletePathQuery } from './volume-ops.js';
import * as V from './volumes.js';

/**
 * THE contract of the HTTP API: every operation, keyed `METHOD /path` (Express path syntax),
 * with its JSON `response` schema (2xx), or the `kind` of the non-JSON answer its handler
 * streams, and the request `body`/`query` schemas clients send. The server takes each route's
 * response schema from here (http/registry.ts; checked on every answer under tests), the
 * OpenAPI document shows them, and the CLI and the renderer derive their request and
 * answer types from it (contract/call.ts): adding an endpoint = one line here + `r.add`.
 */
export type ResponseKind = 'ndjson' | 'bytes' | 'sse';

interface RouteContract {
  response?: z.ZodType;
  kind?: ResponseKind;
  /** With kind `sse`: one event's `data` (the OpenAPI document shows it as the stream's schema). */
  events?: z.ZodType;
  body?: z.ZodType;
  query?: z.ZodType;
}

const Box = B.Box;
const box = { response: Box };
const never = { response: NeverSucceeds };

export const ROUTES = {
  // boxes and lifecycle
  'POST /v1/boxes': { body: B.CreateBoxBody, response: Box },
  'GET /v1/boxes': { query: B.ListBoxesQuery, response: pageOf(Box) },
  'GET /v1/boxes/:box_id': box,
  'POST /v1/boxes/:box_id/pause': box,
  'POST /v1/boxes/:box_id/resume': { response: B.ResumeResult },
  'POST /v1/boxes/:box_id/sleep': { body: B.SleepBody, response: Box },
  'POST /v1/boxes/:box_id/wake_at': { body: B.WakeAtBody, response: Box },
  'POST /v1/boxes/:box_id/auto_sleep': { body: B.AutoSleep, response: Box },
  'POST /v1/boxes/:box_id/reboot': box,
  'POST /v1/boxes/:box_id/upgrade': box,
  'POST /v1/boxes/:box_id/terminate': box,
  'PUT /v1/boxes/:box_id/inference-budget': { body: B.BudgetBody, response: Box },
  'GET /v1/boxes/:box_id/inference-budget': { response: BoxInferenceBudget },
  // checkpoints and forks
  'POST /v1/boxes/:box_id/checkpoint': { body: B.CheckpointBody, response: B.Checkpoint },
  'GET /v1/box-checkpoints': { query: B.ListCheckpointsQuery, response: listOf(B.Checkpoint) },
  'GET /v1/box-checkpoints/:checkpoint_id': { response: B.Checkpoint },
  'DELETE /v1/box-checkpoints/:checkpoint_id': { response: B.Checkpoint },
  'POST /v1/boxes/from_checkpoint': { body: B.FromCheckpointBody, response: Box },
  'POST /v1/boxes/:box_id/fork': { body: B.ForkBody, response: B.ForkResult },
  'GET /v1/box-lineage': { response: listOf(B.LineageEdge) },
  // ours, beyond the spec (issue 29): restore a box in place to one of its checkpoints
  'POST /v1/boxes/:box_id/restore': { body: BO.RestoreBody, response: Box },
  // code interpreter (issue 25)
  'POST /v1/boxes/:box_id/code/contexts': { body: Code.CreateContextBody, response: Code.CodeContext },
  'GET /v1/boxes/:box_id/code/contexts': { response: listOf(Code.CodeContext) },
  'DELETE /v1/boxes/:box_id/code/contexts/:context_id': { response: Code.ContextDeleted },
  'POST /v1/boxes/:box_id/code/contexts/:context_id/restart': { response: Code.CodeContext },
  'POST /v1/boxes/:box_id/code/run': { body: Code.RunCodeBody, query: Code.RunCodeQuery, response: Code.CodeExecution, kind: 'ndjson' },
  // E2B's REST API (issue 27), in E2B's wire shapes and errors (`{code, message}`): e2b/
  'POST /e2b/api/sandboxes': { body: E.E2BCreateBody, response: E.E2BCreated },
  'POST /e2b/api/v2/sandboxes': { body: E.E2BCreateBody, response: E.E2BCreated },
  'GET /e2b/api/sandboxes': { query: E.E2BListQuery, response: E.E2BListedSandbox.array() },
  'GET /e2b/api/v2/sandboxes': { query: E.E2BListQuery, response: E.E2BListedSandbox.array() },
  'GET /e2b/api/sandboxes/:sandboxID': { response: E.E2BSandboxDetail },
  'DELETE /e2b/api/sandboxes/:sandboxID': { response: E.E2BNoContent },
  'POST /e2b/api/sandboxes/:sandboxID/timeout': { body: E.E2BTimeoutBody, response: E.E2BNoContent },
  'POST /e2b/api/sandboxes/:sandboxID/refreshes': { body: E.E2BRefreshBody, response: E.E2BNoContent },
  'POST /e2b/api/sandboxes/:sandboxID/pause': { body: EF.E2BPauseBody, response: E.E2BNoContent },
  'POST /e2b/api/v2/sandboxes/:sandboxID/connect': { body: EF.E2BConnectBody, response: E.E2BCreated },
  'POST /e2b/api/sandboxes/:sandboxID/resume': { body: EF.E2BConnectBody, response: E.E2BCreated },
  // E2B features Box has under its own names (issue 33): e2b/feature-routes.ts
  'PUT /e2b/api/sandboxes/:sandboxID/network': { body: EF.E2BNetworkUpdateBody, response: E.E2BNoContent },
  'GET /e2b/api/sandboxes/metrics': { query: EF.E2BMetricsListQuery, response: EF.E2BSandboxesWithMetrics },
  'GET /e2b/api/sandboxes/:sandboxID/metrics': { query: EF.E2BMetricsQuery, response: EF.E2BMetrics },
  'POST /e2b/api/v3/templates': { body: EF.E2BTemplateRequestBody, response: EF.E2BTemplateRequested },
  'GET /e2b/api/templates/aliases/:alias': { response: EF.E2BTemplateAlias },
  'POST /e2b/api/templates/tags': { body: EF.E2BAssignTagsBody, response: EF.E2BAssignedTags },
  'DELETE /e2b/api/templates/tags': { body: EF.E2BDeleteTagsBody, response: E.E2BNoContent },
  'GET /e2b/api/templates/:templateID/tags': { response: EF.E2BTemplateTag.array() },
  'GET /e2b/api/templates/:templateID/files/:hash': { response: EF.E2BTemplateFileUpload },
  'POST /e2b/api/v2/templates/:templateID/builds/:buildID': { body: EF.E2BTemplateBuildStart, response: EF.E2BAccepted },
  'GET /e2b/api/templates/:templateID/builds/:buildID/status': { query: EF.E2BBuildStatusQuery, response: EF.E2BTemplateBuildInfo },
  'POST /e2b/api/sandboxes/:sandboxID/fork': { body: E.E2BForkBody, response: E.E2BForkResult.array() },
  'POST /e2b/api/sandboxes/:sandboxID/snapshots': { body: E.E2BSnapshotBody, response: E.E2BSnapshot },
  'GET /e2b/api/snapshots': { query: E.E2BSnapshotsQuery, response: E.E2BSnapshot.array() },
  'DELETE /e2b/api/templates/:templateID': { response: E.E2BNoContent },
  // E2B's secrets, volumes and templates on Box's (issue 33): e2b/rest-routes.ts, e2b/template-routes.ts
  'GET /e2b/api/templates': { response: ER.E2BTemplate.array() },
  'GET /e2b/api/templates/:templateID': { response: ER.E2BTemplateWithBuilds },
  'GET /e2b/api/secrets': { query: ER.E2BSecretsQuery, response: ER.E2BSecret.array() },
  'POST /e2b/api/secrets': { body: ER.E2BNewSecret, response: ER.E2BSecret },
  'GET /e2b/api/secrets/:secretID': { response: ER.E2BSecret },
  'POST /e2b/api/secrets/:secretID': { body: ER.E2BSecretUpdate, response: ER.E2BSecret },
  'DELETE /e2b/api/secrets/:secretID': { response: E.E2BNoContent },
  'GET /e2b/api/volumes': { response: ER.E2BVolume.array() },
  'POST /e2b/api/volumes': { body: ER.E2BNewVolume, response: ER.E2BVolumeAndToken },
  'GET /e2b/api/volumes/:volumeID': { response: ER.E2BVolumeAndToken },
  'DELETE /e2b/api/volumes/:volumeID': { response: E.E2BNoContent }, // then the volume content API (its token, no API key)
  'GET /e2b/api/volumecontent/:volumeID/dir': { query: ER.E2BVolumeDirQuery, response: ER.E2BVolumeEntryStat.array() },
  'POST /e2b/api/volumecontent/:volumeID/dir': { query: ER.E2BVolumeCreateQuery, response: ER.E2BVolumeEntryStat },
  'GET /e2b/api/volumecontent/:volumeID/path': { query: ER.E2BVolumePathQuery, response: ER.E2BVolumeEntryStat },
  'PATCH /e2b/api/volumecontent/:volumeID/path': { query: ER.E2BVolumePathQuery, body: ER.E2BVolumeMetadataBody, response: ER.E2BVolumeEntryStat },
  'DELETE /e2b/api/volumecontent/:volumeID/path': { query: ER.E2BVolumePathQuery, response: E.E2BNoContent },
  'GET /e2b/api/volumecontent/:volumeID/file': { query: ER.E2BVolumePathQuery, kind: 'bytes' },
  'PUT /e2b/api/volumecontent/:volumeID/file': { query: ER.E2BVolumeCreateQuery, response: ER.E2BVolumeEntryStat },
  // exec
  'POST /v1/boxes/:box_id/exec': { body: ExecBody, kind: 'ndjson' },
  'GET /v1/boxes/:box_id/exec': { response: listOf(ExecInfo) },
  'POST /v1/boxes/:box_id/exec/:exec_id/wait': { response: ExecResult },
  'PUT /v1/boxes/:box_id/exec/:exec_id/stdin': { query: StdinQuery, response: StdinAccepted },
  'POST /v1/boxes/:box_id/exec/:exec_id/cancel': { body: CancelBody.optional(), response: ExecCancelled },
  'POST /v1/boxes/:box_id/exec/:exec_id/resize': { body: ResizeBody, response: ExecResized },
  // files inside a box
  'PUT /v1/boxes/:box_id/files': { query: PutFileQuery, response: V.FileWriteResult },
  'GET /v1/boxes/:box_id/files': { query: GetFileQuery, kind: 'bytes' },
  'GET /v1/boxes/:box_id/directories': { query: ListDirQuery, response: V.DirectoryListing },
  // ours, beyond the spec (issue 29): the box file browser's new folder, delete, rename
  'POST /v1/boxes/:box_id/directories': { body: BO.BoxMkdirBody, response: V.VolumeEntry },
  'DELETE /v1/boxes/:box_id/paths': { query: BO.BoxDeletePathQuery, response: DeletedPath },
  'POST /v1/boxes/:box_id/paths/move': { body: BO.BoxMovePathBody, response: V.VolumeEntry },
  // cron; desktop (computer use; contract/desktop.ts)
  'GET /v1/boxes/:box_id/desktop': { response: D.DesktopInfo },
  'GET /v1/boxes/:box_id/desktop/screenshot': { query: D.ScreenshotQuery, kind: 'bytes' },
  'POST /v1/boxes/:box_id/desktop/actions': { body: D.DesktopAction, response: D.DesktopActionResult },
  'GET /v1/boxes/:box_id/desktop/windows': { response: listOf(D.DesktopWindow) },
  'POST /v1/boxes/:box_id/desktop/launch': { body: D.LaunchBody, response: D.Launched },
  'POST /v1/boxes/:box_id/desktop/open': { body: D.OpenBody, response: D.Opened },
  'POST /v1/boxes/:box_id/desktop/recordings': { body: D.StartRecordingBody, response: D.DesktopRecording },
  'GET /v1/boxes/:box_id/desktop/recordings': { response: listOf(D.DesktopRecording) },
  'GET /v1/boxes/:box_id/desktop/recordings/:recording_id': { response: D.DesktopRecording },
  'POST /v1/boxes/:box_id/desktop/recordings/:recording_id/stop': { response: D.DesktopRecording },
  'DELETE /v1/boxes/:box_id/desktop/recordings/:recording_id': { response: D.DesktopRecording },
  'GET /v1/boxes/:box_id/desktop/recordings/:recording_id/frames/:image': { kind: 'bytes' },
  'GET /v1/boxes/:box_id/cron': { query: PageQuery, response: pageOf(C.CronJob) },
  'POST /v1/boxes/:box_id/cron': { body: C.CreateCronBody, response: C.CronJob },
  'GET /v1/boxes/:box_id/cron/:cron_id': { response: C.CronJob },
  'DELETE /v1/boxes/:box_id/cron/:cron_id': { response: C.CronJob },
  'POST /v1/boxes/:box_id/cron/:cron_id/run': { response: C.CronRun },
  'GET /v1/boxes/:box_id/cron/:cron_id/runs': { response: listOf(C.CronRun) },
  'GET /v1/cron': { response: listOf(C.CronJob) },
  // networking
  'GET /v1/boxes/:box_id/listeners': { response: listOf(N.Listener) },
  'POST /v1/boxes/:box_id/listeners': { body: N.CreateListenerBody, response: N.Listener },
  'DELETE /v1/boxes/:box_id/listeners/:guest_port': { response: N.Listener },
  'GET /v1/boxes/:box_id/domains': { response: listOf(N.BoxDomain) },
  'POST /v1/boxes/:box_id/domains': { body: N.CreateDomainBody, response: N.BoxDomain },
  'DELETE /v1/boxes/:box_id/domains/:domain': { response: N.BoxDomain },
  'DELETE /v1/boxes/:box_id/domains': { body: N.DeleteDomainBody, response: N.BoxDomain },
  'GET /v1/boxes/:box_id/egress-log': { query: N.EgressLogQuery, response: pageOf(N.EgressLogRow), kind: 'sse' },
  // console and service log (JSON tails; ?stream=1 is server-sent events), what quitting does
  'GET /v1/boxes/:box_id/console': { query: S.ConsoleQuery, response: S.ConsoleTail, kind: 'sse' },
  'GET /v1/service/log': { query: S.ServiceLogQuery, response: S.ServiceLogPage, kind: 'sse' },
  'GET /v1/service/settings': { response: S.ServiceSettings },
  'PATCH /v1/service/settings': { body: S.PatchServiceSettings, response: S.ServiceSettings },
  'GET /v1/service/quit-plan': { query: S.QuitPlanQuery, response: S.QuitPlan },
  'GET /v1/egress/ca': { response: N.EgressCa },
  'POST /v1/egress/ca/rotate': { response: N.EgressCaRotated },
  // HTTP policies
  'GET /v1/http-policies/presets': { response: listOf(P.PolicyPreset) },
  'GET /v1/http-policies': { query: PageQuery, response: pageOf(P.HttpPolicy) },
  'POST /v1/http-policies': { body: P.CreatePolicyBody, response: P.HttpPolicy },
  'GET /v1/http-policies/:id': { response: P.HttpPolicy },
  'PATCH /v1/http-policies/:id': { body: P.PatchPolicyBody, response: P.HttpPolicy },
  'DELETE /v1/http-policies/:id': { response: P.HttpPolicy },
  'GET /v1/boxes/:box_id/http-policy': { response: P.HttpPolicy },
  'PUT /v1/boxes/:box_id/http-policy': { body: P.AttachPolicyBody, response: P.HttpPolicy },
  'DELETE /v1/boxes/:box_id/http-policy': { response: P.PolicyDetached },
  // volumes
  'POST /v1/box-volumes': { body: V.CreateVolumeBody, response: V.Volume },
  'GET /v1/box-volumes': { query: PageQuery, response: pageOf(V.Volume) },
  'GET /v1/box-volumes/:volume_id': { response: V.Volume },
  'DELETE /v1/box-volumes/:volume_id': { response: V.Volume },
  'GET /v1/box-volumes/:volume_id/directories': { query: V.DirectoryQuery, response: V.DirectoryListing },
  'POST /v1/box-volumes/:volume_id/directories': { body: MakeDirectoryBody, response: V.VolumeEntry },
  'GET /v1/box-volumes/:volume_id/paths': { query: V.PathQuery, response: V.VolumeEntry },
  'DELETE /v1/box-volumes/:volume_id/paths': { query: DeletePathQuery, response: DeletedPath },
  'POST /v1/box-volumes/:volume_id/paths/move': { body: MovePathBody, response: V.VolumeEntry },
  'GET /v1/box-volumes/:volume_id/files': { query: V.FileReadQuery, kind: 'bytes' },
  'PUT /v1/box-volumes/:volume_id/files': { query: V.FileWriteQuery, response: V.FileWriteResult },
  // secrets, SSH, images, templates
  'GET /v1/secrets': { query: PageQuery, response: pageOf(SecretMeta) },
  'PUT /v1/secrets/:name': { body: PutSecretBody, response: SecretMeta },
  'GET /v1/secrets/:name': { response: SecretMeta },
  'DELETE /v1/secrets/:name': { response: SecretMeta },
  'GET /v1/secrets/:name/policies': { response: listOf(P.HttpPolicy) },
  'GET /v1/ssh/ca': { response: SshCa },
  'POST /v1/ssh/certificate': { body: CertificateBody, response: SshCertificate },
  'GET /v1/images': { response: ImageList },
  'GET /v1/images/:name': { response: Image },
  'DELETE /v1/images/:name': { response: Image },
  'GET /v1/templates': { response: TemplateList },
  'GET /v1/templates/:template_id': { response: Template },
  'DELETE /v1/templates/:template_id': { response: Template },
  // usage
  'GET /v1/boxes/spend': { query: SpendQuery, response: SpendResponse },
  'GET /v1/boxes/:box_id/metrics': { query: MetricsQuery, response: MetricsResponse },
  'GET /v1/usage/tokens': { query: TokensQuery, response: TokensResponse },
  // webhook inbox
  'POST /v1/inbox': { body: Ib.CreateInboxBody, response: Ib.Inbox },
  'POST /v1/inbox/mine': { response: Ib.Inbox },
  'GET /v1/inboxes': { response: listOf(Ib.Inbox) },
  'PATCH /v1/inbox/:inbox_id': { body: Ib.PatchInboxBody, response: Ib.Inbox },
  'GET /v1/inbox': { query: Ib.ListDeliveriesQuery, response: pageOf(Ib.InboxDelivery) },
  'POST /v1/inbox/hooks/:inbox_id': { response: Ib.HookReceipt },
  // identity, apps, organization, service
  'GET /v1/whoami': { response: Id.Whoami },
  'GET /v1/api-keys': { response: listOf(Id.ApiKey) },
  'POST /v1/api-keys': { body: Id.CreateApiKeyBody, response: Id.CreatedApiKey },
  'DELETE /v1/api-keys/:key_id': { response: Id.ApiKey },
  'GET /v1/organization': { response: Id.Organization },
  'PATCH /v1/organization': { body: Id.PatchOrganizationBody, response: Id.Organization },
  'GET /v1/audit-log': { query: PageQuery, response: pageOf(Id.AuditEntry) },
  'GET /v1/status': { response: Id.ServiceStatus },
  'POST /v1/ui/login-links': { response: Id.LoginLink },
  'POST /v1/invites': { body: Sv.CreateInviteBody, response: Sv.Invite },
  'POST /v1/invites/accept': { body: Sv.AcceptInviteBody, response: Sv.AcceptedInvite },
  'GET /v1/health': { response: Sv.Health },
  'GET /v1/ready': { response: Sv.Readiness },
  'POST /v1/apps/find': { body: Id.FindAppBody, response: Id.App },
  'GET /v1/apps': { response: listOf(Id.AppSummary) },
  'GET /v1/openapi.json': { response: Id.OpenApiDocument },
  // inference
  'POST /v1/responses': { body: Inf.ResponsesBody, response: ResponseObject, kind: 'sse', events: ResponsesStreamEvent },
  'POST /v1/responses/compact': { body: CompactBody, response: CompactedResponse },
  'GET /v1/responses/:response_id': { response: ResponseObject },
  'DELETE /v1/responses/:response_id': never,
  'POST /v1/responses/:response_id/cancel': never,
  'GET /v1/responses/:response_id/deliveries': { response: Inf.DeliveryList },
  'POST /v1/responses/:response_id/deliveries/redeliver': { response: Inf.Redelivery },
  'GET /v1/webhook-secret': { response: Inf.WebhookSecret },
  'POST /v1/chat/completions': { body: Inf.ChatBody, response: ChatCompletion, kind: 'sse', events: ChatStreamChunk },
  'POST /v1/messages': { body: Inf.MessagesBody, response: MessageObject, kind: 'sse', events: MessagesStreamEvent },
  'POST /v1/messages/batches': never,
  'GET /v1/messages/batches': never,
  'GET /v1/messages/batches/:batch_id': never,
  'DELETE /v1/messages/batches/:batch_id': never,
  'POST /v1/messages/batches/:batch_id/cancel': never,
  'GET /v1/messages/batches/:batch_id/results': never,
  'POST /v1/embeddings': { body: EmbeddingsBody, response: EmbeddingList },
  'GET /v1/models': { response: Inf.ModelList },
  'GET /v1/models/:model_id': { response: Inf.ModelEntry },
  'GET /v1/models/:engine/:model': { response: Inf.ModelEntry },
  // engines and local models
  'GET /v1/engines': { response: listOf(Inf.EngineInfo) },
  'POST /v1/engines': { body: Inf.UpsertEngineBody, response: Inf.EngineInfo },
  'DELETE /v1/engines/:name': { response: Inf.EngineInfo },
  'POST /v1/engines/:name/test': { response: Inf.EngineTest },
  'GET /v1/engines/discovery': { response: Inf.DiscoveryState },
  'PUT /v1/engines/discovery': { body: Inf.DiscoveryBody, response: Inf.DiscoveryState },
  'POST /v1/engines/discovery/scan': { response: listOf(Inf.EngineInfo) },
  'GET /v1/engines/local/models': { response: listOf(Inf.LocalModel) },
  /** 201 with the model ({path}), or 202 with a download job ({url}). */
  'POST /v1/engines/local/models': { body: Inf.AddLocalModelBody, response: Inf.LocalModel.or(Inf.DownloadJob) },
  'DELETE /v1/engines/local/models/:model': { response: Inf.LocalModel },
  'GET /v1/engines/local/downloads': { response: listOf(Inf.DownloadJob) },
  'GET /v1/engines/local/downloads/:download_id': { response: Inf.DownloadJob },
  'GET /v1/local-models/catalog': { response: listOf(Inf.CatalogEntry) },
  'POST /v1/local-models/pull': { body: Inf.PullBody, response: Inf.ModelPull },
  'GET /v1/local-models/pulls': { response: listOf(Inf.ModelPull) },
  'GET /v1/local-models/pulls/:pull_id': { response: Inf.ModelPull },
  'POST /v1/local-models/pulls/:pull_id/cancel': { response: Inf.ModelPull },
  // MCP over streamable HTTP (issue 26): JSON-RPC in, JSON or a server-sent stream out
  'POST /mcp': { kind: 'sse' },
  'GET /mcp': { kind: 'sse' },
  'DELETE /mcp': { kind: 'sse' },
  'GET /v1/mcp/tools': { response: listOf(McpTool) },
} as const satisfies Record<string, RouteContract>;

/** The contract entry of a route, by its method and Express path. */
export function routeContract(method: string, path: string): RouteContract | undefined {
  return (ROUTES as Record<string, RouteContract>)[`${method.toUpperCase()} ${path}`];
}
