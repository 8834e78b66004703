#!/bin/bash
# The image's entry point: runs the command it is given (the studio by default; compose's
# Spark master and worker are `spark-class ...`), except `executor`, with which Spark on
# Kubernetes starts the executor pods of a `k8s://` cluster profile whose
# `spark.kubernetes.container.image` is this image. Spark tells such a pod in environment
# variables which driver to join and as what; the executor then runs this image's Python
# for its Python workers (the profile's "python": /usr/local/bin/python).
set -euo pipefail

if [ "${1:-}" != executor ]; then
    exec "$@"
fi

spark_home=$(python -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))')
# The executor's JVM options, one a variable (SPARK_JAVA_OPT_0, _1, ...; each may hold spaces).
java_options=()
index=0
while name="SPARK_JAVA_OPT_$index" && [ -n "${!name+set}" ]; do
    java_options+=("${!name}")
    index=$((index + 1))
done

exec java "${java_options[@]}" \
    -Xms"$SPARK_EXECUTOR_MEMORY" -Xmx"$SPARK_EXECUTOR_MEMORY" \
    -cp "${SPARK_CONF_DIR:-$spark_home/conf}:$spark_home/jars/*" \
    org.apache.spark.scheduler.cluster.k8s.KubernetesExecutorBackend \
    --driver-url "$SPARK_DRIVER_URL" \
    --executor-id "$SPARK_EXECUTOR_ID" \
    --cores "$SPARK_EXECUTOR_CORES" \
    --app-id "$SPARK_APPLICATION_ID" \
    --hostname "$SPARK_EXECUTOR_POD_IP" \
    --resourceProfileId "${SPARK_RESOURCE_PROFILE_ID:-0}" \
    --podName "$SPARK_EXECUTOR_POD_NAME"
