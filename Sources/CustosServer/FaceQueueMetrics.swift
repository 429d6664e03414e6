import CustosCore

/// The face engine's queue in Prometheus text, for `/metrics` (`HTTPMetrics.include`).
public enum FaceQueueMetrics {
    public static func render(_ queue: FaceQueueStatistics) -> String {
        """
        # HELP custos_face_workers Face engine instances on this node.
        # TYPE custos_face_workers gauge
        custos_face_workers \(queue.workers)
        # HELP custos_face_workers_busy Face engine instances analysing now.
        # TYPE custos_face_workers_busy gauge
        custos_face_workers_busy \(queue.busy)
        # HELP custos_face_queue_depth Face analyses waiting for an engine instance.
        # TYPE custos_face_queue_depth gauge
        custos_face_queue_depth \(queue.waiting)
        # HELP custos_face_admitted_analyses Face analyses that admitted requests may still ask for.
        # TYPE custos_face_admitted_analyses gauge
        custos_face_admitted_analyses \(queue.admitted)
        # HELP custos_face_queue_expected_wait_seconds How long a request admitted now would wait for its first analysis.
        # TYPE custos_face_queue_expected_wait_seconds gauge
        custos_face_queue_expected_wait_seconds \(queue.expectedWaitSeconds)
        # HELP custos_face_queue_wait_seconds Time analyses waited for an engine instance.
        # TYPE custos_face_queue_wait_seconds summary
        custos_face_queue_wait_seconds_sum \(queue.waitedSeconds)
        custos_face_queue_wait_seconds_count \(queue.waits)
        # HELP custos_face_busy_refusals_total Selfies and document scans refused with 503 server_busy: the face engine's wait would have passed its bound.
        # TYPE custos_face_busy_refusals_total counter
        custos_face_busy_refusals_total \(queue.refused)

        """
    }
}
