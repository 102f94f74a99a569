package cluster

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

const (
	// serviceCIDR and podCIDR only ever appear in object fields: nothing
	// here routes to them.
	serviceCIDR = "10.96.0.0/16"
	podCIDR     = "10.244.0.0/16"
	// kwokNodeAnnotation marks the nodes kwok manages.
	kwokNodeAnnotation = "kwok.x-k8s.io/node"
)

// credentials are the static tokens and the kubeconfigs built on them.
type credentials struct {
	tokenFile                              string
	admin                                  string // the admin's token
	controllerManager, scheduler, kwokConf string // kubeconfig paths
}

// writeCredentials gives each component its own identity. The controller
// manager and scheduler use the names the bootstrap RBAC policy binds; the
// admin and kwok (which writes node and pod status) are system:masters.
func writeCredentials(stateDir, server string, keys pki) (credentials, error) {
	dir := filepath.Join(stateDir, "kubeconfigs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return credentials{}, fmt.Errorf("create %s: %w", dir, err)
	}
	creds := credentials{
		tokenFile:         filepath.Join(stateDir, "pki", "tokens.csv"),
		controllerManager: filepath.Join(dir, "kube-controller-manager.kubeconfig"),
		scheduler:         filepath.Join(dir, "kube-scheduler.kubeconfig"),
		kwokConf:          filepath.Join(dir, "kwok.kubeconfig"),
	}
	users := []struct {
		name, groups, kubeconfig string
	}{
		{"kubectl-chart-admin", "system:masters", filepath.Join(stateDir, "kubeconfig")},
		{"system:kube-controller-manager", "", creds.controllerManager},
		{"system:kube-scheduler", "", creds.scheduler},
		{"kwok-controller", "system:masters", creds.kwokConf},
	}
	var csv strings.Builder
	for i, u := range users {
		token := randomToken()
		if i == 0 {
			creds.admin = token
		}
		// token,user,uid,"group1,group2"
		fmt.Fprintf(&csv, "%s,%s,%s,%q\n", token, u.name, u.name, u.groups)
		if err := writeKubeconfig(u.kubeconfig, server, token, keys.caPEM); err != nil {
			return credentials{}, fmt.Errorf("write kubeconfig for %s: %w", u.name, err)
		}
	}
	if err := os.WriteFile(creds.tokenFile, []byte(csv.String()), 0o600); err != nil {
		return credentials{}, fmt.Errorf("write token file: %w", err)
	}
	return creds, nil
}

func writeKubeconfig(path, server, token string, ca []byte) error {
	const name = "kubectl-chart"
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name, Namespace: "default"}
	cfg.CurrentContext = name
	return clientcmd.WriteToFile(*cfg, path)
}

func etcdArgs(dataDir, clientURL, peerURL string) []string {
	return []string{
		"--name=kubectl-chart",
		"--data-dir=" + dataDir,
		"--listen-client-urls=" + clientURL,
		"--advertise-client-urls=" + clientURL,
		"--listen-peer-urls=" + peerURL,
		"--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=kubectl-chart=" + peerURL,
		"--initial-cluster-state=new",
		// Throw-away data: skip fsync, which dominates etcd's latency on disk.
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	}
}

func apiserverArgs(port int, etcdURL string, keys pki, creds credentials) []string {
	return []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(port),
		// A loopback advertise address needs it from Kubernetes 1.37 on; the
		// kubernetes Service then has no endpoints, which nothing here uses.
		"--endpoint-reconciler-type=none",
		"--tls-cert-file=" + keys.ServingCert,
		"--tls-private-key-file=" + keys.ServingKey,
		"--client-ca-file=" + keys.CACert,
		"--token-auth-file=" + creds.tokenFile,
		"--authorization-mode=RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + keys.SAPub,
		"--service-account-signing-key-file=" + keys.SAKey,
		"--service-cluster-ip-range=" + serviceCIDR,
		"--allow-privileged=true",
		"--cert-dir=" + filepath.Dir(keys.CACert),
		"--profiling=false",
		// Logs are read from kwok's kubelet API at the node's InternalIP
		// (127.0.0.1), whose certificate this CA signed.
		"--kubelet-preferred-address-types=InternalIP",
		"--kubelet-certificate-authority=" + keys.CACert,
		// A test cluster has too few clients to need fair queuing; without
		// it the API server starts with less work.
		"--enable-priority-and-fairness=false",
	}
}

func controllerManagerArgs(stateDir string, creds credentials, keys pki) []string {
	return []string{
		"--kubeconfig=" + creds.controllerManager,
		// Its default is under /usr/libexec, which it would create.
		"--flex-volume-plugin-dir=" + filepath.Join(stateDir, "flexvolume"),
		// Nothing scrapes it: serve no port.
		"--secure-port=0",
		"--leader-elect=false",
		// Each controller acts as its own service account, as in a real
		// cluster, so RBAC mistakes show up here too.
		"--use-service-account-credentials=true",
		"--service-account-private-key-file=" + keys.SAKey,
		"--root-ca-file=" + keys.CACert,
		"--cluster-name=kubectl-chart",
		"--kube-api-qps=100",
		"--kube-api-burst=200",
	}
}

func schedulerArgs(creds credentials) []string {
	return []string{
		"--kubeconfig=" + creds.scheduler,
		"--secure-port=0",
		"--leader-elect=false",
	}
}

// kwokArgs run kwok with its stages and its kubelet API (container logs) on
// port, with the API server's serving certificate, which names 127.0.0.1.
func kwokArgs(creds credentials, keys pki, stages, logsConfig string, port int) []string {
	return []string{
		"--kubeconfig=" + creds.kwokConf,
		"--config=" + stages,
		"--config=" + logsConfig,
		"--server-address=127.0.0.1:" + strconv.Itoa(port),
		"--node-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + keys.ServingCert,
		"--tls-private-key-file=" + keys.ServingKey,
		"--manage-all-nodes=false",
		"--manage-nodes-with-annotation-selector=" + kwokNodeAnnotation + "=fake",
		// The node's address: whatever might dial it (kubectl logs) stays on
		// loopback.
		"--node-ip=127.0.0.1",
		"--cidr=" + podCIDR,
		"--node-lease-duration-seconds=40",
	}
}

// PodLogLine is what every container of the fake node logs: kwok serves it
// for every pod, so that commands that read logs have something to show.
const PodLogLine = "kwok: output of this container"

// writeLogsConfig writes the kwok configuration that serves PodLogLine as
// the log of every container, from a file in CRI's log format.
func writeLogsConfig(dir string) (string, error) {
	logFile := filepath.Join(dir, "container.log")
	if err := os.WriteFile(logFile, []byte("2026-01-02T03:04:05.000000000Z stdout F "+PodLogLine+"\n"), 0o644); err != nil {
		return "", err
	}
	conf := filepath.Join(dir, "kwok-logs.yaml")
	doc := fmt.Sprintf("apiVersion: kwok.x-k8s.io/v1alpha1\nkind: ClusterLogs\nmetadata:\n  name: every-container\nspec:\n  logs:\n  - logsFile: %q\n", logFile)
	return conf, os.WriteFile(conf, []byte(doc), 0o644)
}

func coreResource(resource string) schema.GroupVersionResource {
	return schema.GroupVersionResource{Version: "v1", Resource: resource}
}

// createNode registers the fake node, as a kubelet would. It has no taint,
// so ordinary workloads schedule onto it.
func createNode(ctx context.Context, client dynamic.Interface) error {
	resources := map[string]any{"cpu": "32", "memory": "128Gi", "pods": "500"}
	node := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "Node",
		"metadata": map[string]any{
			"name": NodeName,
			"annotations": map[string]any{
				kwokNodeAnnotation:             "fake",
				"node.alpha.kubernetes.io/ttl": "0",
			},
			"labels": map[string]any{
				"kubernetes.io/hostname": NodeName,
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     runtime.GOARCH,
				"type":                   "kwok",
			},
		},
		"status": map[string]any{"capacity": resources, "allocatable": resources},
	}}
	_, err := client.Resource(coreResource("nodes")).Create(ctx, node, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// waitNodeReady waits until the node is Ready and the controller manager has
// lifted the not-ready taint, so that pods schedule at once.
func waitNodeReady(ctx context.Context, client dynamic.Interface) error {
	_, err := WaitFor(ctx, client, coreResource("nodes"), "", NodeName, func(node *unstructured.Unstructured) bool {
		if !ConditionTrue(node, "Ready") {
			return false
		}
		taints, _, _ := unstructured.NestedSlice(node.Object, "spec", "taints")
		for _, t := range taints {
			if m, ok := t.(map[string]any); ok && m["key"] == "node.kubernetes.io/not-ready" {
				return false
			}
		}
		return true
	})
	return err
}
